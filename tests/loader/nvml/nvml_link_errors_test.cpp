// SPDX-License-Identifier: Apache-2.0
// NVLink error counters through the real dlopen path: the record asks
// nvmlDeviceGetNvLinkErrorCounter for counters 0-3 and nvmlDeviceGetFieldValues for NVLink5's
// of every active link, keeps what NVML answers and leaves the rest unknown; the simulated
// NVML adds a link's growth at each later session (tests/fixtures/machines/nvlink-errors-8x
// and nvlink5-errors-8x).
#include "nvml_loader_support.hpp"
#include "sources/nvml/nvml_record.hpp"

#include <gtest/gtest.h>

namespace peergate::testing_nvml {
namespace {

using model::NvlinkCounter;

util::Expected<nvml::NvmlRecord> record(const std::string& machine_path) {
    ::setenv("PEERGATE_SIM_MACHINE", machine_path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    return nvml::record_nvml(nvml::NvmlRecordOptions{.libraries = {PEERGATE_SIM_NVML},
                                                     .host_root = "/nonexistent-host-root"});
}

const model::NvlinkErrorCounts& counts(const nvml::NvmlRecord& r, std::size_t gpu, int link) {
    return r.gpus.at(gpu).links.at(static_cast<std::size_t>(link)).errors;
}

TEST(NvmlLinkErrors, EachActiveLinkHasItsCounters) {
    const auto r = record(fixture("nvlink-errors-8x"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    const auto& gpu2 = counts(*r, 2, 5);
    EXPECT_EQ(gpu2[NvlinkCounter::replay], 1200U);
    EXPECT_EQ(gpu2[NvlinkCounter::recovery], 0U);
    EXPECT_EQ(gpu2[NvlinkCounter::crc_flit], 310U);
    EXPECT_EQ(gpu2[NvlinkCounter::crc_data], 0U);
    EXPECT_EQ(counts(*r, 5, 9)[NvlinkCounter::recovery], 2U);
    EXPECT_EQ(counts(*r, 0, 0)[NvlinkCounter::replay], 0U);  // a link the file does not list
    // NOT_SUPPORTED leaves a counter unknown, the others read: GPU 1 link 7 answers none,
    // GPU 2 link 5 the DL counters but not NVLink5's.
    EXPECT_FALSE(counts(*r, 1, 7)[NvlinkCounter::crc_data].has_value());
    EXPECT_FALSE(counts(*r, 1, 7)[NvlinkCounter::replay].has_value());
    EXPECT_FALSE(gpu2[NvlinkCounter::effective_errors].has_value());
    EXPECT_FALSE(gpu2[NvlinkCounter::link_recovery_events].has_value());
}

// Blackwell: the NVLink5 counters come as field values (fields 215 and 219, scopeId = the
// link); where the file lists only those, the DL counters answer NOT_SUPPORTED.
TEST(NvmlLinkErrors, Nvlink5CountersAreReadAsFieldValues) {
    const auto first = record(fixture("nvlink5-errors-8x"));
    const auto second = record(fixture("nvlink5-errors-8x"));
    ASSERT_TRUE(first.has_value() && second.has_value());
    const auto& gpu5 = counts(*first, 5, 9);
    EXPECT_EQ(gpu5[NvlinkCounter::link_recovery_events], 2U);
    EXPECT_EQ(gpu5[NvlinkCounter::effective_errors], 3U);
    EXPECT_FALSE(gpu5[NvlinkCounter::replay].has_value());
    // A link the file does not list: clean, on the counters its GPU keeps.
    EXPECT_EQ(counts(*first, 0, 0)[NvlinkCounter::effective_errors], 0U);
    EXPECT_FALSE(counts(*first, 0, 0)[NvlinkCounter::crc_flit].has_value());
    EXPECT_EQ(*counts(*second, 6, 3)[NvlinkCounter::effective_errors] -
                  *counts(*first, 6, 3)[NvlinkCounter::effective_errors],
              25U);
}

TEST(NvmlLinkErrors, AFailingFieldValuesCallLeavesTheCountsUnknownNotTheRecord) {
    auto machine = load_fixture("nvlink5-errors-8x");
    machine.faults.push_back(nvml_fault("nvmlDeviceGetFieldValues", "fail", 999));
    const auto r = record(write_variant(machine, "field-values-fail"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->gpus[5].nvlink_slots, 18);
    EXPECT_FALSE(counts(*r, 5, 9)[NvlinkCounter::link_recovery_events].has_value());
    EXPECT_FALSE(counts(*r, 0, 0)[NvlinkCounter::effective_errors].has_value());
}

TEST(NvmlLinkErrors, ALaterSessionReadsWhatTheLinkGained) {
    const auto first = record(fixture("nvlink-errors-8x"));
    const auto second = record(fixture("nvlink-errors-8x"));
    ASSERT_TRUE(first.has_value() && second.has_value());
    const auto before = *counts(*first, 6, 3)[NvlinkCounter::replay];
    const auto after = *counts(*second, 6, 3)[NvlinkCounter::replay];
    EXPECT_EQ(after - before, 40U);
    EXPECT_EQ(*counts(*second, 6, 3)[NvlinkCounter::crc_flit] -
                  *counts(*first, 6, 3)[NvlinkCounter::crc_flit],
              160U);
    EXPECT_EQ(counts(*second, 2, 5), counts(*first, 2, 5));  // no growth listed
}

TEST(NvmlLinkErrors, AFailingCounterCallLeavesTheCountsUnknownNotTheRecord) {
    auto machine = load_fixture("nvlink-errors-8x");
    machine.faults.push_back(nvml_fault("nvmlDeviceGetNvLinkErrorCounter", "fail", 999));
    const auto r = record(write_variant(machine, "counter-fails"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->gpus[2].nvlink_slots, 18);
    for (std::size_t k = 0; k < model::kNvlinkCounters; ++k) {
        EXPECT_FALSE(counts(*r, 2, 5).value[k].has_value()) << k;
    }
}

}  // namespace
}  // namespace peergate::testing_nvml
