// SPDX-License-Identifier: Apache-2.0
// AER statistics (sources/host/aer_stats.cpp): the kernel's three files, with 4.19's long
// names (the ABI document's sample) and the short names later kernels print, read under a
// host root laid out as sysfs.
#include "sources/host/aer_stats.hpp"

#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace peergate::sources::host {
namespace {

using Counts = std::vector<std::pair<std::string, std::uint64_t>>;

TEST(AerStats, ReadsTheAbiDocumentsSample) {
    const auto counters = parse_aer_counters(
        "Receiver Error 2\nBad TLP 0\nBad DLLP 0\nRELAY_NUM Rollover 0\nReplay Timer Timeout 0\n"
        "Advisory Non-Fatal 0\nCorrected Internal Error 0\nHeader Log Overflow 0\n"
        "TOTAL_ERR_COR 2\n");
    ASSERT_EQ(counters.counts.size(), 8U);
    EXPECT_EQ(counters.counts[0], (std::pair<std::string, std::uint64_t>{"Receiver Error", 2}));
    EXPECT_EQ(counters.counts[3].first, "RELAY_NUM Rollover");
    EXPECT_EQ(counters.total, 2U);
    EXPECT_EQ(counters.sum(), 2U);
}

TEST(AerStats, ReadsShortNamesPaddedNamesAndSkipsWhatIsNotACount) {
    const auto counters = parse_aer_counters(
        "RxErr 0\nBadTLP 37\nBad DLLP              5\n\nno-count\nTimeout x\nCmpltTO -1\n"
        "UnsupReq 18446744073709551616\nACSViol\t1\n");
    EXPECT_EQ(counters.counts,
              (Counts{{"RxErr", 0}, {"BadTLP", 37}, {"Bad DLLP", 5}, {"ACSViol", 1}}));
    EXPECT_FALSE(counters.total.has_value());
    EXPECT_EQ(counters.sum(), 43U);  // no total line: the counts
}

TEST(AerStats, TheTotalLineIsTheTotalEvenWhereTheCountsDiffer) {
    // One message may report several errors, so the kernel's total need not be their sum.
    const auto counters = parse_aer_counters("BadTLP 3\nBadDLLP 3\nTOTAL_ERR_COR 4\n");
    EXPECT_EQ(counters.sum(), 4U);
}

TEST(AerStats, ADeviceWithoutTheFilesHasNoAer) {
    const test::ScratchDir scratch;
    const std::string dir = scratch.file("sys/bus/pci/devices/0000:06:00.0");
    std::filesystem::create_directories(dir);
    const HostRoot root(scratch.path());
    const auto address = *model::PciAddress::parse("0000:06:00.0");
    EXPECT_FALSE(read_aer(root, address).has_value());
    scratch.write("sys/bus/pci/devices/0000:06:00.0/aer_dev_nonfatal",
                  "UnsupReq 1\nTOTAL_ERR_NONFATAL 1\n");
    const auto aer = read_aer(root, address);
    ASSERT_TRUE(aer.has_value());
    EXPECT_FALSE(aer->correctable.has_value());
    ASSERT_TRUE(aer->nonfatal.has_value());
    EXPECT_EQ(aer->nonfatal->sum(), 1U);
}

}  // namespace
}  // namespace peergate::sources::host
