// SPDX-License-Identifier: Apache-2.0
// peergate doctor's peer-access layers per pair and --gpus, end to end on simulated machines
// whose NVML and CUDA driver answer as the machine files say.
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

using Json = nlohmann::ordered_json;

TEST(DoctorPeerAccess, GeforceBoxWithoutPeerAccessIsHealthyAndSaysWhy) {
    const auto run = run_peergate({"--simulate", "rtx4090-8x-pcie", "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    const auto& access = doc["layers"]["peer_access"];
    EXPECT_EQ(access["gpus"], "all");
    ASSERT_EQ(access["pairs"].size(), 56U);
    const auto& first = access["pairs"][0];
    EXPECT_EQ(first["src"], 0);
    EXPECT_EQ(first["dst"], 1);
    EXPECT_EQ(first["topology"], "PIX");
    EXPECT_EQ(first["nvml_p2p"]["read"], "GNS");
    EXPECT_EQ(first["nvml_p2p"]["nvlink"], "NS");
    EXPECT_EQ(first["cuda_can_access_peer"], false);
    const Json* info = find_finding(doc, "p2p_not_supported");
    ASSERT_NE(info, nullptr) << doc.dump(2);
    EXPECT_EQ((*info)["severity"], "info");
    EXPECT_NE((*info)["message"].get<std::string>().find("27 more pairs"), std::string::npos);
}

TEST(DoctorPeerAccess, NvmlSayingOkWhereCudaRefusesIsAWarning) {
    const auto run =
        run_peergate({"--simulate", fixture_machine("probe-no-peer-2x"), "doctor", "--json"});
    const auto doc = stdout_json(run);
    const Json* warning = find_finding(doc, "p2p_layers_disagree");
    ASSERT_NE(warning, nullptr) << doc.dump(2);
    EXPECT_EQ((*warning)["gpus"], Json::array({0, 1}));
    EXPECT_EQ(doc["layers"]["peer_access"]["pairs"][0]["nvml_p2p"]["read"], "OK");
    EXPECT_EQ(doc["layers"]["peer_access"]["pairs"][0]["cuda_can_access_peer"], false);
}

TEST(DoctorPeerAccess, SilentDropHostSaysTheCapabilityQueriesClaimPeerAccess) {
    const auto run = run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "doctor"});
    EXPECT_EQ(run.process.exit_code, 1);
    EXPECT_NE(
        run.process.out.find("NODE  OK  OK  NS  NS  OK  yes  => PCIe, no data moved  GPUs 0-1"),
        std::string::npos)
        << run.process.out;
    EXPECT_NE(run.process.out.find("claim peer access for 2 of the 2 ordered pairs"),
              std::string::npos)
        << run.process.out;
}

TEST(DoctorPeerAccess, GpusExaminesOnlyTheSelectedPairs) {
    const auto run =
        run_peergate({"--simulate", "bridged-a100-4x", "doctor", "--gpus", "1,0", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    const auto& access = doc["layers"]["peer_access"];
    EXPECT_EQ(access["gpus"], Json::array({0, 1}));
    ASSERT_EQ(access["pairs"].size(), 2U);
    EXPECT_EQ(access["pairs"][0]["topology"], "NV12");
    EXPECT_EQ(access["pairs"][1]["src"], 1);
}

TEST(DoctorPeerAccess, AGpuNotOnTheHostIsAUsageErrorThatListsTheGpus) {
    const auto run = run_peergate({"--simulate", "bridged-a100-4x", "doctor", "--gpus", "0,9"});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(run.process.err.find("--gpus: GPU 9 is not on this host (GPUs: 0, 1, 2, 3)"),
              std::string::npos)
        << run.process.err;
    const auto twice = run_peergate({"--simulate", "bridged-a100-4x", "doctor", "--gpus", "1,1"});
    EXPECT_EQ(twice.process.exit_code, 2);
    EXPECT_NE(twice.process.err.find("listed twice"), std::string::npos) << twice.process.err;
}

TEST(DoctorPeerAccess, AnAbsentNvmlLeavesItsAnswersUnreadAndSaysWhy) {
    const auto run = run_peergate({"--simulate",
                                   "hgx-b200-8x",
                                   "--nvml-lib",
                                   "/nonexistent/libnvidia-ml.so.1",
                                   "doctor",
                                   "--json"});
    const auto doc = stdout_json(run);
    const auto& access = doc["layers"]["peer_access"];
    ASSERT_EQ(access["pairs"].size(), 56U) << doc.dump(2);
    EXPECT_TRUE(access["pairs"][0]["nvml_p2p"]["read"].is_null());
    EXPECT_EQ(access["pairs"][0]["cuda_can_access_peer"], true);
    ASSERT_FALSE(access["notes"].empty());
    EXPECT_NE(access["notes"][0].get<std::string>().find("NVML"), std::string::npos);
}

TEST(DoctorPeerAccess, ABenchResultAddsEachPairsRatesAndFlagsSlowP2p) {
    const test::ScratchDir scratch;
    const std::string machine = fixture_machine("bench-p2p-slow-2x");
    const auto bench = run_peergate({"--simulate", machine, "bench", "--json"});
    const std::string result = scratch.file("bench.json");
    ASSERT_TRUE(util::write_file_atomically(result, bench.process.out).has_value());
    const auto run =
        run_peergate({"--simulate", machine, "doctor", "--json", "--bandwidth", result});
    const auto doc = stdout_json(run);
    const auto& pair = doc["layers"]["peer_access"]["pairs"][0];
    EXPECT_NEAR(pair["p2p_gbps"].get<double>(), 5.0, 0.1) << pair.dump();  // the machine's 5 GB/s
    EXPECT_GT(pair["staged_gbps"].get<double>(), 5.0);
    const Json* slow = find_finding(doc, "p2p_slower_than_staged");
    ASSERT_NE(slow, nullptr) << doc.dump(2);
    EXPECT_EQ((*slow)["gpus"], Json::array({0, 1}));
}

// The HGX with one NVLink pair slowed to 100 GB/s where its NV18 pairs move 450: bench measures
// it through the simulated driver, and the doctor names the pair against its kind.
TEST(DoctorPeerAccess, ABenchResultNamesAPairFarSlowerThanItsKind) {
    const test::ScratchDir scratch;
    auto hgx = test::load_builtin_machine("hgx-b200-8x");
    hgx.bandwidth.p2p_gbps.assign(8, std::vector<double>(8, 450.0));
    hgx.bandwidth.p2p_gbps[0][3] = hgx.bandwidth.p2p_gbps[3][0] = 100.0;
    const std::string machine = scratch.write("slow-pair-8x.json", snapshot::to_json_text(hgx));
    const auto bench = run_peergate(
        {"--simulate", machine, "--json", "bench", "--gpus", "0,1,2,3", "--size-mib", "4"});
    ASSERT_EQ(bench.process.exit_code, 0) << bench.process.err;
    const std::string result = scratch.write("bench.json", bench.process.out);
    const auto run = run_peergate(
        {"--simulate", machine, "doctor", "--json", "--gpus", "0,1,2,3", "--bandwidth", result});
    const auto doc = stdout_json(run);
    const Json* slow = find_finding(doc, "p2p_slower_than_peers");
    ASSERT_NE(slow, nullptr) << doc.dump(2);
    EXPECT_EQ((*slow)["gpus"], Json::array({0, 3}));
    EXPECT_EQ(doc["verdict"], "healthy");  // slow is a warning, not lost data
}

TEST(DoctorPeerAccess, ABandwidthFileThatIsNotABenchResultIsAUsageError) {
    const test::ScratchDir scratch;
    const std::string file = scratch.file("probe.json");
    ASSERT_TRUE(util::write_file_atomically(file, R"({"schema": "peergate.probe/v1"})"));
    const auto run = run_peergate({"--simulate", "bridged-a100-4x", "doctor", "--bandwidth", file});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(run.process.err.find("--bandwidth " + file + ": \"schema\" is not"),
              std::string::npos)
        << run.process.err;
}

}  // namespace
}  // namespace peergate::test
