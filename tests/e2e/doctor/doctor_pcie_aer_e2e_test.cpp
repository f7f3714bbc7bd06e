// SPDX-License-Identifier: Apache-2.0
// PCIe AER counters end to end (tests/fixtures/machines/pcie-aer-4x.json): the simulated
// sysfs holds each device's three files, the doctor reads them through the real reader for
// every GPU and port on the paths, reads them again after --probe, and export and gather
// carry them.
#include "snapshot/machine_file.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string aer_machine() {
    return std::string(PEERGATE_TEST_FIXTURES) + "/machines/pcie-aer-4x.json";
}

std::vector<std::string> aer_findings(const nlohmann::json& doc, const std::string& code) {
    std::vector<std::string> out;
    for (const auto& finding : doc["findings"]) {
        if (finding["code"] == code) {
            out.push_back(finding["severity"].get<std::string>() + " " + finding["gpus"].dump());
        }
    }
    return out;
}

TEST(DoctorPcieAer, NamesEachDeviceThatCountsErrors) {
    const auto run = run_peergate({"--simulate", aer_machine(), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(aer_findings(doc, "pcie_aer_errors"),
              (std::vector<std::string>{"warning [2,3]", "info [1]", "info [1]"}))
        << doc["findings"].dump(2);
    const auto& devices = doc["layers"]["peer_access"]["pcie_aer"];
    ASSERT_EQ(devices.size(), 12U);  // 4 GPUs, 6 switch ports, 2 root ports
    for (const auto& device : devices) {
        if (device["device"] == "0000:06:00.0") {
            EXPECT_EQ(device["correctable"], 44);
            EXPECT_EQ(device["errors"]["correctable"]["BadTLP"], 37);
            EXPECT_FALSE(device.contains("after_probe"));
        }
    }
}

TEST(DoctorPcieAer, TheProbeReadsThemAgainAndStaticCountsDidNotGrow) {
    const auto run =
        run_peergate({"--simulate", aer_machine(), "doctor", "--probe", "--gpus", "0,1", "--json"});
    const auto doc = stdout_json(run);
    EXPECT_TRUE(aer_findings(doc, "pcie_aer_errors_under_load").empty()) << doc.dump(2);
    const auto& devices = doc["layers"]["peer_access"]["pcie_aer"];
    ASSERT_EQ(devices.size(), 6U);  // GPUs 0 and 1's paths
    for (const auto& device : devices) {
        for (const char* file : {"correctable", "nonfatal", "fatal"}) {
            EXPECT_EQ(device["after_probe"][file], device[file]) << device.dump();
        }
    }
}

TEST(DoctorPcieAer, PrometheusGetsEachDevicesTotals) {
    const auto run = run_peergate({"--simulate", aer_machine(), "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(
        run.process.out.find(
            "peergate_pcie_aer_errors_total{pci_bus_id=\"0000:80:01.0\",severity=\"nonfatal\"} "
            "1\n"),
        std::string::npos)
        << run.process.out;
    EXPECT_NE(
        run.process.out.find(
            "peergate_pcie_aer_errors_total{pci_bus_id=\"0000:06:00.0\",severity=\"correctable\"} "
            "44\n"),
        std::string::npos);
}

TEST(DoctorPcieAer, GatherRecordsTheCountsAboveZero) {
    const test::ScratchDir scratch;
    const std::string out = scratch.file("gathered.json");
    const auto run = run_peergate({"--simulate", aer_machine(), "gather", "--output", out});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    const auto& gpu1 = recorded->gpus[1].aer;
    ASSERT_TRUE(gpu1.has_value());
    ASSERT_TRUE(gpu1->correctable.has_value());
    EXPECT_EQ(gpu1->correctable->counts,
              (std::vector<std::pair<std::string, std::uint64_t>>{
                  {"BadDLLP", 5}, {"BadTLP", 37}, {"Timeout", 2}}));
    EXPECT_EQ(gpu1->correctable->total, 44U);
    EXPECT_TRUE(recorded->gpus[0].aer->correctable->counts.empty());  // zeros left out
    const auto replay = run_peergate({"--simulate", out, "doctor", "--json"});
    EXPECT_EQ(aer_findings(stdout_json(replay), "pcie_aer_errors"),
              (std::vector<std::string>{"warning [2,3]", "info [1]", "info [1]"}));
}

}  // namespace
}  // namespace peergate::test
