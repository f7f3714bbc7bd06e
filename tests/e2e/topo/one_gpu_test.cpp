// SPDX-License-Identifier: Apache-2.0
// A machine of one GPU end to end (built-in single-h200, and a one-GPU machine file). No
// tier gives a matrix, since there is no pair, yet the machine is described: topo reads
// it, doctor calls it healthy, place groups it, and the gate still vetoes P2P. Found on a
// real one-H200 machine, where doctor said "inconclusive" (docs/PERFORMANCE.md).
#include "snapshot/machine_file.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

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
    const auto run = run_peergate(
        {"topo", "--from", std::string(PEERGATE_SOURCE_DIR) + "/machines/single-h200.json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(run.process.out.find("source: file"), std::string::npos) << run.process.out;
    EXPECT_NE(run.process.out.find("one GPU: no pair"), std::string::npos) << run.process.out;
}

const std::string kGatheredH200 =
    std::string(PEERGATE_TEST_FIXTURES) + "/machines/gathered-h200-1x-firecracker.json";

// The file `gather` wrote on a real one-H200 machine (tests/fixtures/machines/README.md).
TEST(OneGpu, TheRealH200ReplaysAsHealthyWithItsOwnIdentity) {
    const auto topo = run_peergate({"--simulate", kGatheredH200, "--json", "topo"});
    EXPECT_EQ(topo.process.exit_code, 0) << topo.process.err;
    const auto doc = stdout_json(topo);
    ASSERT_EQ(doc["gpus"].size(), 1U);
    EXPECT_EQ(doc["gpus"][0]["name"], "NVIDIA H200");
    EXPECT_EQ(doc["gpus"][0]["pci_bus_id"], "00000000:00:06.0");
    EXPECT_EQ(doc["gpus"][0]["numa_node"], 0);
    EXPECT_EQ(doc["gpus"][0]["cpu_affinity"], "0-15");
    const auto doctor = run_peergate({"--simulate", kGatheredH200, "--json", "doctor"});
    EXPECT_EQ(doctor.process.exit_code, 0) << doctor.process.err;
    EXPECT_EQ(stdout_json(doctor)["verdict"], "healthy");
}

// Gathering the replay of a real host gives the host's answers back.
TEST(OneGpu, GatheringTheReplayedH200IsAFixedPoint) {
    const test::ScratchDir scratch;
    const std::string again = scratch.file("again.json");
    const auto run = run_peergate({"--simulate", kGatheredH200, "gather", "-o", again});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto original = snapshot::load_machine(kGatheredH200);
    const auto replayed = snapshot::load_machine(again);
    ASSERT_TRUE(original && replayed);
    EXPECT_EQ(replayed->gpus, original->gpus);
    EXPECT_EQ(replayed->matrix, original->matrix);
    EXPECT_EQ(replayed->driver_version, original->driver_version);
    EXPECT_EQ(replayed->cuda_driver_version, 13000);
    EXPECT_EQ(replayed->cuda_can_access_peer, original->cuda_can_access_peer);
    EXPECT_EQ(replayed->recorded_topo_m, original->recorded_topo_m);
    EXPECT_EQ(replayed->host.iommu, original->host.iommu);
    EXPECT_EQ(replayed->host.hypervisor, original->host.hypervisor);
}

}  // namespace
}  // namespace peergate::test
