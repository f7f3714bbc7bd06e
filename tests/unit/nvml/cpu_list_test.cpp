// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_census.hpp"

#include <gtest/gtest.h>

#include <cstdio>

namespace peergate::nvml {
namespace {

using Words = std::vector<unsigned long>;  // NOLINT(google-runtime-int): NVML's word

TEST(CpuList, RendersRangesAcrossWords) {
    // CPUs 0-47 and 96-143 need three 64-bit words (docs/driver-facts.md).
    Words words(3, 0);
    for (unsigned cpu = 0; cpu < 48; ++cpu) {
        words[cpu / 64] |= 1UL << (cpu % 64);
    }
    for (unsigned cpu = 96; cpu < 144; ++cpu) {
        words[cpu / 64] |= 1UL << (cpu % 64);
    }
    EXPECT_EQ(render_cpu_list(words), "0-47,96-143");
}

TEST(CpuList, Table) {
    const std::vector<std::pair<Words, std::string>> cases{
        {{0}, ""},
        {{0x1}, "0"},
        {{0x5}, "0,2"},
        {{0x3}, "0-1"},
        {{~0UL}, "0-63"},
        {{1UL << 63, 1}, "63-64"},
        {{0, 0x8000000000000000UL}, "127"},
    };
    for (const auto& [words, expected] : cases) {
        EXPECT_EQ(render_cpu_list(words), expected);
    }
}

TEST(PciOf, PrefersBusIdTextAndFallsBackToFields) {
    nvmlPciInfo_t info{};
    std::snprintf(info.busId, sizeof info.busId, "%s", "00000000:1B:00.0");
    ASSERT_TRUE(pci_of(info));
    EXPECT_EQ(pci_of(info)->to_nvml(), "00000000:1B:00.0");
    nvmlPciInfo_t fields{};
    fields.domain = 1;
    fields.bus = 0xC3;
    fields.device = 2;
    ASSERT_TRUE(pci_of(fields));
    EXPECT_EQ(pci_of(fields)->to_nvml(), "00000001:C3:02.0");
}

}  // namespace
}  // namespace peergate::nvml
