// SPDX-License-Identifier: Apache-2.0
// A machine of one GPU end to end (built-in single-h200, and a one-GPU machine file). No
// tier gives a matrix, since there is no pair, yet the machine is described: topo reads
// it, doctor calls it healthy, place groups it, and the gate still vetoes P2P. Found on a
// real one-H200 machine, where doctor said "inconclusive" (docs/PERFORMANCE.md).
#include <gtest/gtest.h>

#include <string>

#include "support/peergate_process.hpp"

namespace peergate::test {
namespace {

TEST(OneGpu, TopoDescribesTheGpuAndExitsZero) {
    const auto run = run_peergate({"--simulate", "single-h200", "topo"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(run.process.out.find("NVIDIA H200"), std::string::npos) << run.process.out;
    EXPECT_NE(run.process.out.find("one GPU: no pair"), std::string::npos) << run.process.out;
}

TEST(OneGpu, TopoJsonIsReadableWithOneByOneMatrixAndTiersThatGaveNoVerdict) {
    const auto run = run_peergate({"--simulate", "single-h200", "--json", "topo"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["readable"], true);
    EXPECT_EQ(doc["source"], "nvml");
    ASSERT_EQ(doc["gpus"].size(), 1U);
    EXPECT_EQ(doc["gpus"][0]["name"], "NVIDIA H200");
    EXPECT_EQ(doc["matrix"], nlohmann::ordered_json::parse(R"([["X"]])"));
    EXPECT_EQ(doc["nvlink_islands"], nlohmann::ordered_json::parse("[[0]]"));
    ASSERT_FALSE(doc["tiers"].empty());
    EXPECT_EQ(doc["tiers"][0]["answered"], false);
    EXPECT_EQ(doc["tiers"][0]["reason"], "NVML sees 1 GPU: no pair to judge");
}

TEST(OneGpu, DoctorIsHealthyWithTheSingleGpuFinding) {
    const auto run = run_peergate({"--simulate", "single-h200", "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "healthy");
    ASSERT_EQ(doc["findings"].size(), 1U) << doc.dump(2);
    EXPECT_EQ(doc["findings"][0]["code"], "single_gpu");
    EXPECT_EQ(doc["findings"][0]["severity"], "info");
}

TEST(OneGpu, PlaceMakesOneGroupOfOneAndRefusesTwo) {
    const auto one = run_peergate({"--simulate", "single-h200", "--json", "place", "--size", "1"});
    EXPECT_EQ(one.process.exit_code, 0) << one.process.err;
    const auto doc = stdout_json(one);
    ASSERT_EQ(doc["groups"].size(), 1U) << doc.dump(2);
    const auto two = run_peergate({"--simulate", "single-h200", "place", "--size", "2"});
    EXPECT_EQ(two.process.exit_code, 2);
    EXPECT_NE(two.process.err.find("1 candidate"), std::string::npos) << two.process.err;
}

TEST(OneGpu, TheGateStillVetoesForLackOfAPeer) {
    const auto run = run_peergate({"--simulate", "single-h200", "--json", "gate"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_EQ(doc["rule"], "single_gpu");
    EXPECT_EQ(doc["topology_source"], "none");
}

TEST(OneGpu, TopoFromAOneGpuMachineFileDescribesIt) {
    const auto run = run_peergate({"topo", "--from", std::string(PEERGATE_SOURCE_DIR) + "/machines/single-h200.json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(run.process.out.find("source: file"), std::string::npos) << run.process.out;
    EXPECT_NE(run.process.out.find("one GPU: no pair"), std::string::npos) << run.process.out;
}

}  // namespace
}  // namespace peergate::test
