// SPDX-License-Identifier: Apache-2.0
// peergate doctor --probe end to end: the probe's verdicts join each pair's layers, and data
// moved and compared outranks what the capability queries say.
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace peergate::test {
namespace {

using Json = nlohmann::ordered_json;

PeergateRun doctor_probe(const std::string& simulate) {
    return run_peergate({"--simulate", simulate, "doctor", "--probe", "--json"});
}

TEST(DoctorProbe, SilentDropUnderLoadIsFoundAndNamedPerPair) {
    const auto run = doctor_probe("pcie-rtx6000ada-2x-iommu");
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    const Json* lost = find_finding(doc, "probe_data_lost");
    ASSERT_NE(lost, nullptr) << doc.dump(2);
    EXPECT_EQ((*lost)["severity"], "error");
    EXPECT_EQ((*lost)["gpus"], Json::array({0, 1}));
    EXPECT_NE((*lost)["message"].get<std::string>().find("concurrent"), std::string::npos);
    EXPECT_FALSE((*lost)["remedy"].get<std::string>().empty());
    EXPECT_EQ(doc["layers"]["probe"]["result"], "fail");
    const auto& pair = doc["layers"]["peer_access"]["pairs"][0];
    EXPECT_EQ(pair["probe"], "data_lost");
    EXPECT_EQ(pair["probe_path"], "direct");  // peer access on: the path llama.cpp takes
    ASSERT_TRUE(pair["probe_gbps"].is_number()) << pair.dump();
    EXPECT_GT(pair["probe_gbps"].get<double>(), 0.0);
}

TEST(DoctorProbe, PairsTheDriverRefusesAreProbedOnTheStagedPath) {
    const auto doc = stdout_json(doctor_probe(fixture_machine("probe-no-peer-2x")));
    const auto& pair = doc["layers"]["peer_access"]["pairs"][0];
    EXPECT_EQ(pair["probe"], "ok");
    EXPECT_EQ(pair["probe_path"], "staged");
    EXPECT_EQ(doc["verdict"], "healthy") << doc.dump(2);
}

TEST(DoctorProbe, IntactDataOnATranslatingIommuTurnsTheErrorIntoAWarning) {
    const auto without =
        run_peergate({"--simulate", fixture_machine("probe-intact-2x"), "doctor", "--json"});
    EXPECT_EQ(without.process.exit_code, 1);
    const auto run = doctor_probe(fixture_machine("probe-intact-2x"));
    EXPECT_EQ(run.process.exit_code, 0) << run.process.out << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "healthy");
    const Json* iommu = find_finding(doc, "pcie_p2p_under_translating_iommu");
    ASSERT_NE(iommu, nullptr) << doc.dump(2);
    EXPECT_EQ((*iommu)["severity"], "warning");
    EXPECT_NE((*iommu)["message"].get<std::string>().find("the drop depends on load"),
              std::string::npos);
    ASSERT_NE(find_finding(doc, "probe_intact"), nullptr);
    EXPECT_EQ(doc["layers"]["peer_access"]["pairs"][1]["probe"], "ok");
}

TEST(DoctorProbe, AProbeThatCannotDecideLeavesTheErrorStanding) {
    const auto run = doctor_probe(fixture_machine("probe-alloc-fail-2x"));
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    const Json* warning = find_finding(doc, "probe_inconclusive");
    ASSERT_NE(warning, nullptr) << doc.dump(2);
    EXPECT_EQ((*warning)["severity"], "warning");
    EXPECT_EQ((*find_finding(doc, "pcie_p2p_under_translating_iommu"))["severity"], "error");
}

TEST(DoctorProbe, OneGpuSelectedHasNothingToProbe) {
    const auto doc = stdout_json(run_peergate(
        {"--simulate", "bridged-a100-4x", "doctor", "--gpus", "2", "--probe", "--json"}));
    EXPECT_EQ(doc["verdict"], "healthy");
    EXPECT_TRUE(doc["layers"]["probe"].is_null());
    EXPECT_EQ(find_finding(doc, "probe_inconclusive"), nullptr);
    EXPECT_NE(find_finding(doc, "single_gpu"), nullptr);
}

TEST(DoctorProbe, WithoutTheFlagNothingIsProbed) {
    const auto doc = stdout_json(run_peergate({"--simulate", "hgx-b200-8x", "doctor", "--json"}));
    EXPECT_TRUE(doc["layers"]["probe"].is_null());
    EXPECT_TRUE(doc["layers"]["peer_access"]["pairs"][0]["probe"].is_null());
}

// Without --probe the doctor reads the verdict cache an earlier probe wrote on this boot.
TEST(DoctorProbe, WithoutTheFlagTheCachedLossOfThisBootIsReported) {
    const std::filesystem::path cache =
        std::filesystem::path(::testing::TempDir()) / "peergate-doctor-cached-probe";
    std::filesystem::remove_all(cache);
    auto env = clean_env();
    env.set("PEERGATE_CACHE_DIR", (cache / "peergate").string());
    const auto probe = run_peergate({"--simulate",
                                     "pcie-rtx6000ada-2x-iommu",
                                     "probe",
                                     "-q",
                                     "--mode",
                                     "concurrent",
                                     "--sizes-mib",
                                     "1",
                                     "--repeats",
                                     "1"},
                                    env);
    ASSERT_EQ(probe.process.exit_code, 1) << probe.process.err;
    const auto run =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "doctor", "--json"}, env);
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    const Json* lost = find_finding(doc, "cached_probe_data_lost");
    ASSERT_NE(lost, nullptr) << doc.dump(2);
    EXPECT_EQ((*lost)["gpus"], Json::array({0, 1}));
    EXPECT_NE((*lost)["message"].get<std::string>().find("GPU 0 -> GPU 1, GPU 1 -> GPU 0"),
              std::string::npos)
        << (*lost)["message"];
    EXPECT_TRUE(doc["layers"]["probe"].is_null()) << "no probe ran now";
    std::filesystem::remove_all(cache);
}

TEST(DoctorProbe, ASoakReachesTheProbeAndNeedsIt) {
    const auto run = run_peergate({"--simulate",
                                   fixture_machine("probe-intact-2x"),
                                   "doctor",
                                   "--probe",
                                   "--soak",
                                   "0.001",
                                   "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["layers"]["probe"]["soak_s"], 0.001);
    // A round takes about a millisecond on the simulated host, so a 1 ms soak runs one or a
    // few, as the machine's load has it; at least the one it must.
    EXPECT_GE(doc["layers"]["probe"]["rounds"].get<int>(), 1);
    const auto alone =
        run_peergate({"--simulate", fixture_machine("probe-intact-2x"), "doctor", "--soak", "60"});
    EXPECT_EQ(alone.process.exit_code, 2);
    EXPECT_NE(alone.process.err.find("--soak requires --probe"), std::string::npos)
        << alone.process.err;
}

}  // namespace
}  // namespace peergate::test
