// SPDX-License-Identifier: Apache-2.0
// `peergate topo --source smi` against small fake nvidia-smi scripts (tests/scripts): the
// real run path (no shell, 10 s timeout, killed past it) with every way nvidia-smi fails.
#include "support/peergate_process.hpp"
#include "support/topo_m_truth.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace peergate {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::ordered_json;

test::PeergateRun topo_smi(const std::string& smi) {
    return test::run_peergate({"topo", "--source", "smi", "--nvidia-smi", smi, "--json"});
}

std::string reason_of(const Json& doc) {
    return doc["reason"].is_string() ? doc["reason"].get<std::string>() : "";
}

TEST(TopoSmi, ReadsTheMatrixAndJoinsTheGpuListing) {
    const auto run = topo_smi(test::script_path("fake-smi-bridged-4x.sh"));
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["readable"], true);
    EXPECT_EQ(doc["source"], "nvidia-smi");
    EXPECT_TRUE(doc["reason"].is_null());
    EXPECT_EQ(doc["matrix"], Json(test::topo_m_truths()[2].matrix));
    EXPECT_EQ(doc["nvlink_islands"], Json::parse("[[0,1],[2,3]]"));
    ASSERT_EQ(doc["gpus"].size(), 4U);
    const Json& gpu3 = doc["gpus"][3];
    EXPECT_EQ(gpu3["index"], 3);
    EXPECT_EQ(gpu3["name"], "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(gpu3["pci_bus_id"], "00000000:4E:00.0");
    EXPECT_EQ(gpu3["uuid"], "GPU-3d3d3d3d-0000-4000-8000-000000000003");
    EXPECT_EQ(gpu3["numa_node"], 1);
    EXPECT_EQ(gpu3["cpu_affinity"], "24-47");
}

TEST(TopoSmi, FailedGpuQueryLeavesNamesUnknownButTheMatrixReadable) {
    const auto run = topo_smi(test::script_path("fake-smi-nvlink-8x.sh"));
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["matrix"], Json(test::uniform_grid(8, "NV18")));
    EXPECT_EQ(doc["nvlink_islands"], Json::parse("[[0,1,2,3,4,5,6,7]]"));
    EXPECT_TRUE(doc["gpus"][0]["name"].is_null());
    EXPECT_TRUE(doc["gpus"][0]["pci_bus_id"].is_null());
    EXPECT_EQ(doc["gpus"][7]["cpu_affinity"], "48-95,144-191");
}

TEST(TopoSmi, DriverMismatchIsUnreadableAndSaysWhatNvidiaSmiSaid) {
    const auto run = topo_smi(test::script_path("fake-smi-driver-mismatch.sh"));
    EXPECT_EQ(run.process.exit_code, 2);
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["readable"], false);
    EXPECT_EQ(doc["matrix"], Json::array());
    const std::string reason = reason_of(doc);
    EXPECT_NE(reason.find("exited with status 18"), std::string::npos) << reason;
    EXPECT_NE(reason.find("Failed to initialize NVML: Driver/library version mismatch; NVML "
                          "library version: 535.161"),
              std::string::npos)
        << reason;
}

TEST(TopoSmi, HangingNvidiaSmiIsKilledAtTheTenSecondTimeout) {
    const auto run = topo_smi(test::script_path("fake-smi-hang.sh"));
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_GE(run.elapsed, 10s) << "the timeout is 10 s";
    EXPECT_LT(run.elapsed, 10s + 5s) << "killed at the timeout, not left to run";
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["readable"], false);
    const std::string reason = reason_of(doc);
    EXPECT_NE(reason.find("did not finish within 10000 ms"), std::string::npos) << reason;
    EXPECT_NE(reason.find("fake-smi-hang.sh topo -m"), std::string::npos) << reason;
}

TEST(TopoSmi, TruncatedOutputWithExitZeroIsUnreadable) {
    const auto run = topo_smi(test::script_path("fake-smi-truncated.sh"));
    EXPECT_EQ(run.process.exit_code, 2);
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["readable"], false);
    EXPECT_EQ(doc["matrix"], Json::array()) << "four NV18 rows of eight prove nothing";
    EXPECT_NE(reason_of(doc).find("missing row for GPU4"), std::string::npos) << reason_of(doc);
}

TEST(TopoSmi, MissingBinaryIsUnreadableNamingThePath) {
    const auto run = topo_smi("/nonexistent/bin/nvidia-smi");
    EXPECT_EQ(run.process.exit_code, 2);
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["readable"], false);
    EXPECT_NE(reason_of(doc).find("/nonexistent/bin/nvidia-smi"), std::string::npos)
        << reason_of(doc);
}

TEST(TopoSmi, NvidiaSmiNotOnPathIsUnreadable) {
    // The default is "nvidia-smi" looked up on PATH; this PATH has none, even on a GPU host.
    auto env = test::clean_env();
    env.set("PATH", "/nonexistent");
    const auto run = test::run_peergate({"topo", "--source", "smi", "--json"}, env);
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(reason_of(test::stdout_json(run)).find("nvidia-smi: not found on PATH"),
              std::string::npos);
}

TEST(TopoSmi, EnvironmentVariableSelectsTheBinary) {
    auto env = test::clean_env();
    env.set("PEERGATE_NVIDIA_SMI", test::script_path("fake-smi-bridged-4x.sh"));
    const auto run = test::run_peergate({"topo", "--source", "smi", "--json"}, env);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(test::stdout_json(run)["gpus"].size(), 4U);
}

TEST(TopoSmi, FlagBeatsTheEnvironmentVariable) {
    auto env = test::clean_env();
    env.set("PEERGATE_NVIDIA_SMI", test::script_path("fake-smi-hang.sh"));
    const auto run = test::run_peergate({"topo",
                                         "--source",
                                         "smi",
                                         "--nvidia-smi",
                                         test::script_path("fake-smi-bridged-4x.sh"),
                                         "--json"},
                                        env);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_LT(run.elapsed, 8s) << "the hanging binary from the environment must not have run";
}

}  // namespace
}  // namespace peergate
