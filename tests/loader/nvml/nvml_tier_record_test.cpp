// SPDX-License-Identifier: Apache-2.0
// The NVML tier with a record (the doctor's one session): the links and P2P status come from
// the same nvmlInit as the matrix, and a failed tier gives the record the same reason.
#include "nvml_loader_support.hpp"

#include <gtest/gtest.h>

namespace peergate::testing_nvml {
namespace {

nvml::NvmlTierResult run_recording(const std::string& machine_path,
                                   const std::string& library = PEERGATE_SIM_NVML) {
    ::setenv("PEERGATE_SIM_MACHINE", machine_path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    return nvml::run_nvml_tier(nvml::NvmlTierOptions{.libraries = {library},
                                                     .host_root = "/nonexistent-host-root",
                                                     .watchdog = std::chrono::seconds(10),
                                                     .with_record = true});
}

TEST(NvmlTierRecord, TheRecordComesFromTheTiersSessionWithItsMatrix) {
    const auto plain = run_tier(fixture("nvml-nvswitch-8x"));
    ASSERT_TRUE(plain.topology.has_value());
    EXPECT_FALSE(plain.record.has_value());  // not asked for

    const auto result = run_recording(fixture("nvml-nvswitch-8x"));
    ASSERT_TRUE(result.topology.has_value());
    ASSERT_TRUE(result.record.has_value()) << result.record.error().message;
    ASSERT_EQ(result.record->gpus.size(), 8U);
    EXPECT_EQ(result.record->gpus[0].nvlink_slots, 18);
    ASSERT_TRUE(result.record->p2p[0].has_value());  // caps READ, every pair
    EXPECT_EQ((*result.record->p2p[0])[0][1], "OK");
    ASSERT_TRUE(result.record->topology.has_value());
    EXPECT_EQ(result.record->topology->matrix, result.topology->matrix);
    EXPECT_GT(result.calls, plain.calls);  // the record's calls, in the same session
}

TEST(NvmlTierRecord, NoLibraryGivesTheRecordTheTiersReason) {
    const auto result =
        run_recording(fixture("nvml-nvswitch-8x"), "/nonexistent/libnvidia-ml.so.1");
    ASSERT_FALSE(result.topology.has_value());
    ASSERT_FALSE(result.record.has_value());
    EXPECT_EQ(result.record.error().message, result.topology.error().message);
}

TEST(NvmlTierRecord, AHungDriverCostsOneWatchdogForBoth) {
    auto machine = load_fixture("nvml-nvswitch-8x");
    machine.faults.push_back(nvml_fault("nvmlInit_v2", "hang"));
    ::setenv("PEERGATE_SIM_MACHINE", write_variant(machine, "hang").c_str(), 1);  // NOLINT
    const auto result =
        nvml::run_nvml_tier(nvml::NvmlTierOptions{.libraries = {PEERGATE_SIM_NVML},
                                                  .host_root = "/nonexistent-host-root",
                                                  .watchdog = std::chrono::milliseconds(200),
                                                  .with_record = true});
    ASSERT_FALSE(result.record.has_value());
    EXPECT_EQ(result.record.error().code, util::ErrorCode::timeout);
    EXPECT_EQ(result.topology.error().code, util::ErrorCode::timeout);
}

}  // namespace
}  // namespace peergate::testing_nvml
