// SPDX-License-Identifier: Apache-2.0
// PCIe links that trained narrow, end to end (tests/fixtures/machines/pcie-narrow-4x.json):
// the simulated sysfs shows every link's width and speed, the doctor reads them through the
// real sysfs reader and names GPU 1's x8 link and switch B's x4 uplink, not GPU 2's slot wired
// x8 nor the idle speeds; export and gather carry the same links, and the NIC beside GPUs 0
// and 1.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string narrow_machine() {
    return std::string(PEERGATE_TEST_FIXTURES) + "/machines/pcie-narrow-4x.json";
}

std::vector<std::string> narrow_gpus(const nlohmann::json& doc) {
    std::vector<std::string> out;
    for (const auto& finding : doc["findings"]) {
        if (finding["code"] == "pcie_link_narrow") {
            EXPECT_EQ(finding["severity"], "warning");
            out.push_back(finding["gpus"].dump());
        }
    }
    return out;
}

TEST(DoctorPcieLink, NamesTheLinksThatTrainedNarrowAndNothingElse) {
    const auto run = run_peergate({"--simulate", narrow_machine(), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(narrow_gpus(doc), (std::vector<std::string>{"[1]", "[2,3]"})) << doc.dump(2);
    const auto& links = doc["layers"]["peer_access"]["pcie_links"];
    ASSERT_EQ(links.size(), 6U) << links.dump(2);  // 4 GPU links, 2 switch uplinks
    bool saw_uplink = false;
    for (const auto& link : links) {
        if (link["lower"] == "0000:81:00.0") {
            saw_uplink = true;
            EXPECT_EQ(link["upper"], "0000:80:01.0");
            EXPECT_EQ(link["gpus"].dump(), "[2,3]");
            EXPECT_EQ(link["width"], 4);
            EXPECT_EQ(link["capable_width"], 16);
        }
    }
    EXPECT_TRUE(saw_uplink);
}

// The NIC beside GPUs 0 and 1 trained at x8 of x16 (its port shows the same): a warning
// naming the card, which no GPU's link shows.
TEST(DoctorPcieLink, ANicTrainedNarrowIsNamedByItsBusId) {
    auto machine = snapshot::load_machine(narrow_machine());
    ASSERT_TRUE(machine.has_value()) << machine.error().message;
    ASSERT_TRUE(machine->nics.at(0).pcie_link.has_value());
    machine->nics[0].pcie_link->current_width = 8;
    machine->nics[0].upstream_ports.at(0).pcie_link->current_width = 8;
    const test::ScratchDir scratch;
    const auto file = scratch.write("narrow-nic.json", snapshot::to_json_text(*machine));
    const auto doc = stdout_json(run_peergate({"--simulate", file, "doctor", "--json"}));
    const nlohmann::ordered_json* found = nullptr;
    for (const auto& finding : doc["findings"]) {
        found = finding["code"] == "nic_link_narrow" ? &finding : found;
    }
    ASSERT_NE(found, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*found)["severity"], "warning");
    EXPECT_NE((*found)["message"].get<std::string>().find(
                  "NIC 0000:07:00.0: its PCIe link (to port 0000:04:18.0) trained at x8, where "
                  "both ends can do x16"),
              std::string::npos)
        << (*found)["message"];
    EXPECT_EQ(narrow_gpus(doc), (std::vector<std::string>{"[1]", "[2,3]"}));  // as before
    const auto& links = doc["layers"]["peer_access"]["nic_links"];
    ASSERT_EQ(links.size(), 1U) << links.dump(2);
    EXPECT_EQ(links[0].dump(),
              R"({"nic":"0000:07:00.0","port":"0000:04:18.0","width":8,"capable_width":16,)"
              R"("speed":"16.0 GT/s PCIe","max_speed":"16.0 GT/s PCIe"})");
    const auto text = run_peergate({"--simulate", file, "doctor", "--no-color"}).process.out;
    EXPECT_NE(text.find("\n  NIC 0000:07:00.0  PCIe x8 of x16, 16.0 GT/s PCIe now\n"),
              std::string::npos)
        << text;
}

// The NIC beside GPUs 0 and 1 counts a completion timeout: the doctor and the textfile name
// the card; gather records the counters and the replay says the same.
TEST(DoctorPcieLink, ANicsAerCountsAreNamedAndRecorded) {
    auto machine = snapshot::load_machine(narrow_machine());
    ASSERT_TRUE(machine.has_value()) << machine.error().message;
    machine->nics.at(0).aer =
        model::PciAer{.nonfatal = model::AerCounters{.counts = {{"CmpltTO", 2}}, .total = 2}};
    const test::ScratchDir scratch;
    const auto file = scratch.write("nic-aer.json", snapshot::to_json_text(*machine));
    const auto doc = stdout_json(run_peergate({"--simulate", file, "doctor", "--json"}));
    std::string message;
    for (const auto& finding : doc["findings"]) {
        message =
            finding["code"] == "nic_aer_errors" ? finding["message"].get<std::string>() : message;
    }
    EXPECT_NE(message.find("NIC 0000:07:00.0 counts PCIe errors since boot (AER): non-fatal: 2 "
                           "CmpltTO."),
              std::string::npos)
        << doc["findings"].dump(2);
    const auto prom = run_peergate({"--simulate", file, "export", "prometheus"}).process.out;
    EXPECT_NE(
        prom.find("peergate_nic_aer_errors_total{nic=\"0000:07:00.0\",severity=\"nonfatal\"} 2\n"),
        std::string::npos)
        << prom;
    const auto out = scratch.file("gathered.json");
    ASSERT_EQ(run_peergate({"--simulate", file, "gather", "--output", out}).process.exit_code, 0);
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    ASSERT_TRUE(recorded->nics.at(0).aer.has_value());
    EXPECT_EQ(recorded->nics[0].aer->nonfatal->sum(), 2U);
}

TEST(DoctorPcieLink, TheTextReportListsEachGpusLink) {
    const auto run = run_peergate({"--simulate", narrow_machine(), "doctor", "--no-color"});
    // The ConnectX-6 below GPUs 0 and 1's switch shows on their lines.
    EXPECT_NE(run.process.out.find("\n  GPU1  PCIe x8 of x16, 2.5 GT/s PCIe now; NIC "
                                   "0000:07:00.0 on its switch (ACS redirect)\n"),
              std::string::npos)
        << run.process.out;
    EXPECT_NE(run.process.out.find("\n  GPU2  PCIe x8 of x8, 2.5 GT/s PCIe now\n"),
              std::string::npos);
}

TEST(DoctorPcieLink, ASelectionKeepsOnlyItsOwnLinks) {
    const auto run =
        run_peergate({"--simulate", narrow_machine(), "doctor", "--json", "--gpus", "0,1"});
    const auto doc = stdout_json(run);
    EXPECT_EQ(narrow_gpus(doc), std::vector<std::string>{"[1]"});
    EXPECT_EQ(doc["layers"]["peer_access"]["pcie_links"].size(), 3U);
}

TEST(DoctorPcieLink, PrometheusGetsEachGpusWidthAndWhatItCouldBe) {
    const auto run = run_peergate({"--simulate", narrow_machine(), "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto& out = run.process.out;
    EXPECT_NE(out.find("peergate_gpu_pcie_link_width{gpu=\"1\"} 8\n"), std::string::npos) << out;
    EXPECT_NE(out.find("peergate_gpu_pcie_link_max_width{gpu=\"1\"} 16\n"), std::string::npos);
    EXPECT_NE(out.find("peergate_gpu_pcie_link_max_width{gpu=\"2\"} 8\n"), std::string::npos);
    EXPECT_NE(out.find("peergate_nic_pcie_link_width{nic=\"0000:07:00.0\"} 16\n"),
              std::string::npos);
    EXPECT_NE(out.find("peergate_nic_pcie_link_max_width{nic=\"0000:07:00.0\"} 16\n"),
              std::string::npos);
}

TEST(DoctorPcieLink, GatherRecordsTheLinksForTheReplay) {
    const test::ScratchDir scratch;
    const std::string out = scratch.file("gathered.json");
    const auto run = run_peergate({"--simulate", narrow_machine(), "gather", "--output", out});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    const auto original = snapshot::load_machine(narrow_machine());
    ASSERT_TRUE(original.has_value());
    for (std::size_t g = 0; g < original->gpus.size(); ++g) {
        EXPECT_EQ(recorded->gpus[g].pcie_link, original->gpus[g].pcie_link) << g;
        EXPECT_EQ(recorded->gpus[g].upstream_ports, original->gpus[g].upstream_ports) << g;
    }
    EXPECT_EQ(recorded->nics, original->nics);  // the NIC on switch A, its ports and link
    const auto replay = run_peergate({"--simulate", out, "doctor", "--json"});
    EXPECT_EQ(narrow_gpus(stdout_json(replay)), (std::vector<std::string>{"[1]", "[2,3]"}));
    // NCCL's topology file from the replay has the link widths NCCL would read (the maxima).
    const auto topo = run_peergate({"--simulate", out, "export", "nccl-topo"});
    EXPECT_NE(topo.process.out.find(R"(busid="0000:83:00.0" class="0x030000")"), std::string::npos)
        << topo.process.out;
    EXPECT_NE(topo.process.out.find(R"(link_speed="16.0 GT/s PCIe" link_width="8"/>)"),
              std::string::npos)
        << topo.process.out;
    EXPECT_NE(topo.process.out.find(R"(<pci busid="0000:07:00.0" class="0x020700" )"
                                    R"(vendor="0x15b3" device="0x101b")"),
              std::string::npos)
        << topo.process.out;
}

}  // namespace
}  // namespace peergate::test
