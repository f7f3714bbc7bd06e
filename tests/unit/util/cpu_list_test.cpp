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

}  // namespace
}  // namespace peergate::util
