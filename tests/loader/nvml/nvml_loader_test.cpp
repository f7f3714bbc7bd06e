// SPDX-License-Identifier: Apache-2.0
// Tier 1 through the real dlopen path against the simulated NVML: loading, symbols,
// init, failing calls, the watchdog.
#include "loader/nvml/nvml_loader_support.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace peergate {
namespace {

using namespace testing_nvml;  // NOLINT(google-build-using-namespace)

TEST(NvmlLoader, MissingLibraryIsNoVerdictNamingThePath) {
    const auto result = run_tier(fixture("nvml-pcie-2x"), "/nonexistent/libnvidia-ml.so.1");
    ASSERT_FALSE(result.topology);
    EXPECT_EQ(result.topology.error().code, util::ErrorCode::not_found);
    EXPECT_NE(result.topology.error().message.find("NVML is not available"), std::string::npos);
    EXPECT_NE(result.topology.error().message.find("/nonexistent/libnvidia-ml.so.1"),
              std::string::npos);
    EXPECT_EQ(result.calls, 0U);
}

TEST(NvmlLoader, OlderLibraryWithoutVersionedSymbolsNamesEveryMissingOneAtOnce) {
    const auto result = run_tier(fixture("nvml-pcie-2x"), PEERGATE_SIM_NVML_LEGACY);
    ASSERT_FALSE(result.topology);
    const std::string& message = result.topology.error().message;
    for (const char* symbol : {"nvmlInit_v2",
                               "nvmlDeviceGetCount_v2",
                               "nvmlDeviceGetHandleByIndex_v2",
                               "nvmlDeviceGetPciInfo_v3",
                               "nvmlDeviceGetNvLinkRemotePciInfo_v2"}) {
        EXPECT_NE(message.find(symbol), std::string::npos)
            << symbol << " missing from: " << message;
    }
    EXPECT_EQ(message.find("nvmlDeviceGetName"), std::string::npos)
        << "present symbols are not listed";
    EXPECT_EQ(result.calls, 0U) << "no NVML call is made through an incomplete table";
}

TEST(NvmlLoader, InitFailureCarriesNvmlErrorText) {
    auto machine = load_fixture("nvml-pcie-2x");
    machine.faults.push_back(nvml_fault("nvmlInit_v2", "fail", 9));
    const auto result = run_tier(write_variant(machine, "init"));
    ASSERT_FALSE(result.topology);
    EXPECT_EQ(result.topology.error().message, "nvmlInit_v2 failed: 9 (Driver Not Loaded)");
}

TEST(NvmlLoader, MissingMachineFileLooksLikeNoDriver) {
    const auto result = run_tier("/nonexistent/machine.json");
    ASSERT_FALSE(result.topology);
    EXPECT_NE(result.topology.error().message.find("nvmlInit_v2 failed: 9"), std::string::npos);
}

// Every required call, failing with NVML_ERROR_UNKNOWN, takes the whole tier down: a call
// that fails part-way means no verdict, never a partial matrix.
TEST(NvmlLoader, EachRequiredCallFailingIsNoVerdictNamingTheCall) {
    const char* calls[] = {"nvmlDeviceGetCount_v2",
                           "nvmlDeviceGetHandleByIndex_v2",
                           "nvmlDeviceGetPciInfo_v3",
                           "nvmlDeviceGetName",
                           "nvmlDeviceGetUUID",
                           "nvmlDeviceGetNvLinkState",
                           "nvmlDeviceGetNvLinkRemotePciInfo_v2",
                           "nvmlDeviceGetP2PStatus",
                           "nvmlDeviceGetTopologyCommonAncestor"};
    for (const char* call : calls) {
        SCOPED_TRACE(call);
        auto machine =
            load_fixture("nvml-dgx1-v100");  // has NVLinks and SYS pairs: every call runs
        machine.faults.push_back(nvml_fault(call, "fail"));
        const auto result = run_tier(write_variant(machine, call));
        ASSERT_FALSE(result.topology);
        EXPECT_NE(result.topology.error().message.find(call), std::string::npos)
            << result.topology.error().message;
        EXPECT_NE(result.topology.error().message.find("999 (Unknown Error)"), std::string::npos);
    }
}

TEST(NvmlLoader, OptionalCallsFailingLeaveFieldsUnknownNotTheMatrix) {
    auto machine = load_fixture("nvml-dgx1-v100");
    machine.faults.push_back(nvml_fault("nvmlDeviceGetMemoryAffinity", "fail"));
    machine.faults.push_back(nvml_fault("nvmlDeviceGetCpuAffinity", "fail"));
    const auto result = run_tier(write_variant(machine, "optional"));
    ASSERT_TRUE(result.topology) << result.topology.error().message;
    EXPECT_EQ(result.topology->gpus[0].numa_node, std::nullopt);
    EXPECT_EQ(result.topology->gpus[0].cpu_affinity, "");
    EXPECT_EQ(result.topology->matrix[0][3].to_token(), "NV2");
}

TEST(NvmlLoader, HungDriverIsAbandonedWithinTheWatchdog) {
    auto machine = load_fixture("nvml-nvswitch-8x");
    machine.faults.push_back(nvml_fault("nvmlDeviceGetP2PStatus", "hang"));
    const auto path = write_variant(machine, "hang");
    const auto start = std::chrono::steady_clock::now();
    const auto result = run_tier(path, PEERGATE_SIM_NVML, std::chrono::milliseconds(300));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(result.topology);
    EXPECT_EQ(result.topology.error().code, util::ErrorCode::timeout);
    EXPECT_EQ(result.topology.error().message, "NVML did not answer within 300 ms");
    EXPECT_GE(elapsed, std::chrono::milliseconds(300));
    EXPECT_LT(elapsed, std::chrono::milliseconds(1500))
        << "the caller must not wait for the worker";
}

TEST(NvmlLoader, HangInInitIsAbandonedToo) {
    auto machine = load_fixture("nvml-pcie-2x");
    machine.faults.push_back(nvml_fault("nvmlInit_v2", "hang"));
    const auto result =
        run_tier(write_variant(machine, "hang-init"), PEERGATE_SIM_NVML, std::chrono::seconds(1));
    ASSERT_FALSE(result.topology);
    EXPECT_EQ(result.topology.error().message, "NVML did not answer within 1 s");
}

}  // namespace
}  // namespace peergate
