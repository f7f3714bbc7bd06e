// SPDX-License-Identifier: Apache-2.0
#include "util/cpu_list.hpp"

#include <gtest/gtest.h>

namespace peergate::util {
namespace {

TEST(CpuList, ParsesTheKernelsSyntax) {
    using Ranges = std::vector<std::pair<int, int>>;
    EXPECT_EQ(parse_cpu_ranges("0-11,24-35"), (Ranges{{0, 11}, {24, 35}}));
    EXPECT_EQ(parse_cpu_ranges(" 7 "), (Ranges{{7, 7}}));
    for (const char* bad : {"", " ", "3-1", "a", "1,,2", "-1", "1-"}) {
        EXPECT_EQ(parse_cpu_ranges(bad), std::nullopt) << bad;
    }
}

TEST(CpuList, WritesMergedRanges) {
    EXPECT_EQ(format_cpu_ranges({{24, 35}, {0, 11}, {12, 12}}), "0-12,24-35");
    EXPECT_EQ(format_cpu_list({3, 1, 2, 7, 2}), "1-3,7");
    EXPECT_EQ(format_cpu_list({}), "");
}

TEST(CpuList, WritesTheKernelsCpumapMask) {
    EXPECT_EQ(cpu_mask_text("0-3,32"), "00000001,0000000f");
    EXPECT_EQ(cpu_mask_text("5"), "00000020");
    // One socket of an HGX B200, as /sys/devices/system/node/node0/cpumap shows it.
    EXPECT_EQ(cpu_mask_text("0-47,96-143"), "0000ffff,ffffffff,00000000,0000ffff,ffffffff");
    EXPECT_EQ(cpu_mask_text("3-1"), std::nullopt);
    EXPECT_EQ(cpu_mask_text("0-99999999"), std::nullopt);  // a typo, not a CPU
}

}  // namespace
}  // namespace peergate::util
