// SPDX-License-Identifier: Apache-2.0
// The fleet's wire format (report/fleet_json) and its verdict (policy/fleet): failed nodes,
// missing ones, and the node whose hardware differs from what most of its peers report.
#include "policy/fleet/fleet.hpp"

#include "report/fleet/node_lines.hpp"
#include "support/assessed_facts.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace peergate {
namespace {

using model::FleetNode;

FleetNode like(const std::string& name) {
    FleetNode node;
    node.node = name;
    node.version = "0.1.0";
    node.verdict = "healthy";
    node.p2p = true;
    node.iommu = "off";
    node.gpu_names = {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"};
    node.matrix = {{"X", "NV18", "NV18"}, {"NV18", "X", "NV18"}, {"NV18", "NV18", "X"}};
    return node;
}

const policy::fleet::FleetIssue* issue(const policy::fleet::FleetReport& report,
                                       const std::string& code) {
    for (const auto& each : report.issues) {
        if (each.code == code) {
            return &each;
        }
    }
    return nullptr;
}

TEST(FleetVerdict, LikeHealthyNodesPass) {
    const auto report = policy::fleet::judge_fleet({like("c"), like("a"), like("b")}, {}, 3);
    EXPECT_FALSE(report.failed);
    EXPECT_TRUE(report.issues.empty());
    ASSERT_EQ(report.nodes.size(), 3U);
    EXPECT_EQ(report.nodes[0].node.node, "a");  // by name
    EXPECT_EQ(report.majority.gpus, "3");
    EXPECT_EQ(report.majority.p2p, "allowed");
    EXPECT_EQ(report.majority.matrix, like("a").matrix);
}

TEST(FleetVerdict, ANodeThatLostAnNvlinkIsAnOutlierThoughItsOwnChecksPass) {
    auto degraded = like("c");
    degraded.matrix[0][2] = degraded.matrix[2][0] = "NV12";
    const auto report =
        policy::fleet::judge_fleet({like("a"), like("b"), degraded}, {}, std::nullopt);
    EXPECT_TRUE(report.failed);
    const auto* outlier = issue(report, "fleet_outlier");
    ASSERT_NE(outlier, nullptr);
    EXPECT_EQ(outlier->severity, "error");
    EXPECT_EQ(outlier->nodes, std::vector<std::string>{"c"});
    EXPECT_EQ(outlier->message,
              "c: topology differs from most nodes: GPU0-GPU2 NV12 (fleet: NV18)");
    EXPECT_EQ(report.nodes[2].differs, std::vector<std::string>{"topology"});
}

TEST(FleetVerdict, MissingGpusAndModelsAndVersions) {
    auto short_one = like("c");
    short_one.gpu_names.pop_back();
    short_one.matrix = {{"X", "NV18"}, {"NV18", "X"}};
    short_one.version = "0.0.9";
    const auto report =
        policy::fleet::judge_fleet({like("a"), like("b"), short_one}, {}, std::nullopt);
    EXPECT_TRUE(report.failed);
    EXPECT_EQ(report.nodes[2].differs, (std::vector<std::string>{"gpus", "topology", "version"}));
    bool version_warned = false;
    for (const auto& each : report.issues) {
        version_warned = version_warned || (each.message.find("version") != std::string::npos &&
                                            each.severity == "warning");
    }
    EXPECT_TRUE(version_warned);
}

TEST(FleetVerdict, UnhealthyInconclusiveMissingUnreadable) {
    auto sick = like("b");
    sick.verdict = "problems";
    sick.findings = {{"pcie_p2p_under_translating_iommu", "error", ""}, {"x", "warning", ""}};
    auto blind = like("c");
    blind.verdict = "inconclusive";
    const auto report =
        policy::fleet::judge_fleet({like("a"), sick, blind}, {"f:3: not a record"}, 4);
    EXPECT_TRUE(report.failed);
    ASSERT_NE(issue(report, "node_problems"), nullptr);
    EXPECT_EQ(issue(report, "node_problems")->message,
              "b: the doctor's verdict is problems (pcie_p2p_under_translating_iommu)");
    EXPECT_NE(issue(report, "node_inconclusive"), nullptr);
    ASSERT_NE(issue(report, "nodes_missing"), nullptr);
    EXPECT_EQ(issue(report, "nodes_missing")->message, "3 of 4 nodes answered");
    EXPECT_EQ(issue(report, "record_unreadable")->message, "f:3: not a record");
}

TEST(FleetVerdict, NoMajorityIsASplitNotAnOutlier) {
    auto other = like("b");
    other.iommu = "translating";
    const auto report = policy::fleet::judge_fleet({like("a"), other}, {}, std::nullopt);
    EXPECT_FALSE(report.failed);
    ASSERT_NE(issue(report, "fleet_split"), nullptr);
    EXPECT_EQ(issue(report, "fleet_outlier"), nullptr);
    EXPECT_EQ(report.majority.iommu, "");
}

// Driver skew after a rolling upgrade: a warning on the node that differs; a node whose
// record has no driver (an older peergate, or no driver loaded) is not judged on it.
TEST(FleetVerdict, ANodeOnAnotherDriverOrKernelIsWarnedAbout) {
    auto a = like("a");
    auto b = like("b");
    auto c = like("c");
    auto d = like("d");
    a.driver = b.driver = d.driver = "570.86.15";
    c.driver = "560.35.03";
    a.kernel = b.kernel = c.kernel = "6.8.0-51-generic";
    const auto report = policy::fleet::judge_fleet({a, b, c, d}, {}, std::nullopt);
    EXPECT_FALSE(report.failed);
    EXPECT_EQ(report.majority.driver, "570.86.15");
    EXPECT_EQ(report.majority.kernel, "6.8.0-51-generic");
    const auto* outlier = issue(report, "fleet_outlier");
    ASSERT_NE(outlier, nullptr);
    EXPECT_EQ(outlier->severity, "warning");
    EXPECT_EQ(outlier->message, "c: driver differs from most nodes: 560.35.03 (fleet: 570.86.15)");
    EXPECT_EQ(report.nodes[2].differs, std::vector<std::string>{"driver"});
    EXPECT_TRUE(report.nodes[3].differs.empty()) << "d's kernel was not read: not judged";
    // No node read them: nothing to say, not a split.
    const auto unread = policy::fleet::judge_fleet({like("a"), like("b")}, {}, std::nullopt);
    EXPECT_TRUE(unread.issues.empty());
}

// An HCA lost, or one whose driver did not come up (it enumerates, with no RDMA device): the
// node still passes its own checks, so only its peers show it. A record without NICs (an older
// peergate, no sysfs) is not judged on them.
TEST(FleetVerdict, ANodeMissingANicOrItsRdmaDeviceIsAnOutlier) {
    const std::vector<std::string> eight = {"0000:18:00.0 mlx5_0", "0000:9a:00.0 mlx5_5"};
    auto a = like("a");
    auto b = like("b");
    auto c = like("c");
    auto d = like("d");
    a.nics = b.nics = c.nics = eight;
    c.nics->back() = "0000:9a:00.0 (no RDMA device)";
    const auto report = policy::fleet::judge_fleet({a, b, c, d}, {}, std::nullopt);
    EXPECT_TRUE(report.failed);
    EXPECT_EQ(report.majority.nic_list, eight);
    const auto* outlier = issue(report, "fleet_outlier");
    ASSERT_NE(outlier, nullptr);
    EXPECT_EQ(outlier->severity, "error");
    EXPECT_EQ(outlier->message,
              "c: nics differs from most nodes: lacks 0000:9a:00.0 mlx5_5; has 0000:9a:00.0 (no "
              "RDMA device) (fleet: 2 NICs)");
    EXPECT_EQ(report.nodes[2].differs, std::vector<std::string>{"nics"});
    EXPECT_TRUE(report.nodes[3].differs.empty()) << "d read no NICs: not judged";
    // A node that read none, among nodes with NICs, lacks them all.
    d.nics.emplace();
    const auto bare = policy::fleet::judge_fleet({a, b, like("c"), d}, {}, std::nullopt);
    EXPECT_EQ(issue(bare, "fleet_outlier")->message,
              "d: nics differs from most nodes: lacks 0000:18:00.0 mlx5_0; lacks 0000:9a:00.0 "
              "mlx5_5 (fleet: 2 NICs)");
}

TEST(FleetVerdict, NobodyAnswered) {
    const auto report = policy::fleet::judge_fleet({}, {}, std::nullopt);
    EXPECT_TRUE(report.failed);
    EXPECT_EQ(issue(report, "nodes_missing")->message, "no node answered");
}

TEST(FleetVerdict, ARepeatedNodeCountsOnce) {
    auto again = like("a");
    again.source = "all.jsonl:9";
    again.verdict = "problems";
    const auto report = policy::fleet::judge_fleet({like("a"), again, like("b")}, {}, std::nullopt);
    EXPECT_EQ(report.nodes.size(), 2U);
    EXPECT_EQ(issue(report, "node_repeated")->severity, "warning");
    EXPECT_EQ(report.nodes[0].node.source, "all.jsonl:9") << "the last record read stands";
    ASSERT_NE(issue(report, "node_problems"), nullptr);
}

TEST(FleetVerdict, AP2pAnswerUnlikeThePeersIsAnError) {
    auto vetoed = like("c");
    vetoed.p2p = false;
    const auto report =
        policy::fleet::judge_fleet({like("a"), like("b"), vetoed}, {}, std::nullopt);
    EXPECT_TRUE(report.failed);
    const auto* outlier = issue(report, "fleet_outlier");
    ASSERT_NE(outlier, nullptr);
    EXPECT_EQ(outlier->severity, "error");
    EXPECT_EQ(outlier->message, "c: p2p differs from most nodes: vetoed (fleet: allowed)");
}

TEST(FleetVerdict, ATopologyUnlikeInManyPairsNamesFourAndCountsTheRest) {
    const auto four = [](const std::string& name, const std::string& link) {
        FleetNode node = like(name);
        node.gpu_names.push_back(node.gpu_names.front());
        node.matrix.assign(4, std::vector<std::string>(4, link));
        for (std::size_t k = 0; k < 4; ++k) {
            node.matrix[k][k] = "X";
        }
        return node;
    };
    const auto report = policy::fleet::judge_fleet(
        {four("a", "NV18"), four("b", "NV18"), four("c", "PIX")}, {}, std::nullopt);
    const auto* outlier = issue(report, "fleet_outlier");
    ASSERT_NE(outlier, nullptr);
    EXPECT_EQ(outlier->message,
              "c: topology differs from most nodes: GPU0-GPU1 PIX (fleet: NV18), GPU0-GPU2 PIX "
              "(fleet: NV18), GPU0-GPU3 PIX (fleet: NV18), GPU1-GPU2 PIX (fleet: NV18) and 2 "
              "more");
}

// A verdict word the fleet does not know (a newer or a damaged record) is not health.
TEST(FleetVerdict, AnUnknownVerdictIsInconclusive) {
    auto odd = like("c");
    odd.verdict = "";
    const auto report = policy::fleet::judge_fleet({like("a"), like("b"), odd}, {}, std::nullopt);
    EXPECT_TRUE(report.failed);
    ASSERT_NE(issue(report, "node_inconclusive"), nullptr);
    EXPECT_EQ(issue(report, "node_problems"), nullptr);
}

// Nodes that read no GPU agree on the empty topology: each is inconclusive, and the fleet is
// not split over "no topology".
TEST(FleetVerdict, NodesWithoutGpusShareTheEmptyTopology) {
    std::vector<FleetNode> nodes;
    for (const char* name : {"a", "b", "c"}) {
        FleetNode node = like(name);
        node.verdict = "inconclusive";
        node.p2p = false;
        node.gpu_names.clear();
        node.matrix.clear();
        nodes.push_back(node);
    }
    const auto report = policy::fleet::judge_fleet(nodes, {}, std::nullopt);
    EXPECT_EQ(issue(report, "fleet_split"), nullptr) << issue(report, "fleet_split")->message;
    EXPECT_EQ(issue(report, "fleet_outlier"), nullptr);
    EXPECT_NE(issue(report, "node_inconclusive"), nullptr);
    EXPECT_EQ(report.majority.topology, "");
}

TEST(FleetLines, ReadsLabelledAndPlainLinesAndSkipsChatter) {
    const std::string record =
        R"({"schema":"peergate.fleet_node/v1","node":"n1","hostname":"h","version":"0.1.0","verdict":"healthy","p2p":true,"rule":"r","iommu":"off","gpus":[{"index":0,"name":"G"}],"matrix":[["X"]],"findings":[{"code":"c","severity":"info","message":"m"}]})";
    const auto lines = report::fleet::parse_fleet_lines(
        "srun: job 5 queued\n12: " + record + "\n\n" + record + "\r\n", "all");
    ASSERT_EQ(lines.nodes.size(), 2U);
    EXPECT_TRUE(lines.unreadable.empty());
    EXPECT_EQ(lines.nodes[0].node, "n1");
    EXPECT_EQ(lines.nodes[0].source, "all:2");
    EXPECT_EQ(lines.nodes[0].gpu_names, std::vector<std::string>{"G"});
    EXPECT_EQ(lines.nodes[0].findings[0].code, "c");
    EXPECT_EQ(lines.nodes[1].source, "all:4");
    EXPECT_EQ(lines.nodes[0].driver, "") << "records before the field read as unread";
    EXPECT_FALSE(lines.nodes[0].nics.has_value());
}

TEST(FleetLines, NicsReadAsBusIdAndRdmaDevice) {
    const std::string record =
        R"({"schema":"peergate.fleet_node/v1","node":"n1","verdict":"healthy","p2p":true,"gpus":[],"matrix":[],"findings":[],"nics":[{"pci_bus_id":"0000:18:00.0","rdma_devices":["mlx5_0"]},{"pci_bus_id":"0000:9a:00.0","rdma_devices":[]}]})";
    const auto lines = report::fleet::parse_fleet_lines(record + "\n", "all");
    ASSERT_EQ(lines.nodes.size(), 1U) << (lines.unreadable.empty() ? "" : lines.unreadable[0]);
    EXPECT_EQ(lines.nodes[0].nics,
              (std::vector<std::string>{"0000:18:00.0 mlx5_0", "0000:9a:00.0 (no RDMA device)"}));
}

TEST(FleetLines, BadRecordsAreNamedByLine) {
    const auto lines = report::fleet::parse_fleet_lines(
        "{\n{\"schema\":5}\n{\"schema\":\"peergate.fleet_node/v1\",\"node\":\"n\"}\n"
        "{\"schema\":\"peergate.fleet_node/"
        "v1\",\"node\":1,\"verdict\":\"x\",\"p2p\":true,\"gpus\":[],\"matrix\":[],\"findings\":[]}"
        "\n",
        "f");
    EXPECT_TRUE(lines.nodes.empty());
    ASSERT_EQ(lines.unreadable.size(), 4U);
    EXPECT_THAT(lines.unreadable[0],
                testing::StartsWith("f:1: not a peergate.fleet_node/v1 record"));
    EXPECT_THAT(lines.unreadable[1], testing::StartsWith("f:2: "));
    EXPECT_THAT(lines.unreadable[2], testing::StartsWith("f:3: "));
    EXPECT_THAT(lines.unreadable[3], testing::StartsWith("f:4: "));
}

// A record long enough to come in parts: many findings with long messages.
report::exports::ExportFacts long_facts(const std::string& node) {
    report::exports::ExportFacts facts;
    facts.run.node_name = node;
    facts.report.verdict = policy::doctor::Verdict::problems;
    for (int i = 0; i < 12; ++i) {
        facts.report.findings.push_back(model::Finding{.code = model::FindingCode::xid,
                                                       .severity = model::Severity::warning,
                                                       .message = std::string(150, 'm'),
                                                       .xid = i});
    }
    return facts;
}

TEST(FleetLines, PartsFromInterleavedNodesAreReassembled) {
    const auto a = report::fleet::fleet_node_lines(test::assessed(long_facts("a")), "ha", "1");
    const auto b = report::fleet::fleet_node_lines(test::assessed(long_facts("b")), "hb", "2");
    ASSERT_GT(a.size(), 2U);
    std::string text;
    for (std::size_t i = a.size(); i-- > 0;) {  // a's parts backwards, b's between them
        text += std::to_string(i) + ": " + a[i] + "\n";
        if (i < b.size()) {
            text += b[i] + "\n";
        }
    }
    for (const auto& line : a) {
        EXPECT_LE(line.size(), report::fleet::kFleetMaxLine);
    }
    const auto lines = report::fleet::parse_fleet_lines(text, "srun");
    EXPECT_TRUE(lines.unreadable.empty()) << lines.unreadable.front();
    ASSERT_EQ(lines.nodes.size(), 2U);
    const auto& first = lines.nodes[0].node == "a" ? lines.nodes[0] : lines.nodes[1];
    EXPECT_EQ(first.hostname, "ha");
    EXPECT_EQ(first.findings.size(), 12U);
    EXPECT_EQ(first.verdict, "problems");
}

TEST(FleetLines, ARecordMissingAPartIsNamed) {
    auto parts = report::fleet::fleet_node_lines(test::assessed(long_facts("a")), "h", "7");
    parts.erase(parts.begin() + 1);
    std::string text;
    for (const auto& line : parts) {
        text += line + "\n";
    }
    const auto lines = report::fleet::parse_fleet_lines(text, "f");
    EXPECT_TRUE(lines.nodes.empty());
    ASSERT_EQ(lines.unreadable.size(), 1U);
    EXPECT_THAT(lines.unreadable[0], testing::HasSubstr("of a's record arrived whole"));
}

// The NICs as sysfs showed them, physical functions only (how many SR-IOV virtual functions a
// NIC has is a setting, not hardware), read back as bus id and RDMA device; null without sysfs.
TEST(FleetLines, TheNodeLineNamesItsPhysicalNics) {
    report::exports::ExportFacts facts;
    facts.run.node_name = "n";
    const auto pci = [](const char* text) { return model::PciAddress::parse(text).value(); };
    facts.doctor.nics = {
        {.path = {.device = pci("0000:07:00.0"), .ports = {}}, .rdma_devices = {"mlx5_0"}},
        {.path = {.device = pci("0000:07:01.0"), .ports = {}},
         .rdma_devices = {"mlx5_2"},
         .physical_function = pci("0000:07:00.0")}};
    EXPECT_FALSE(report::fleet::parse_fleet_lines(
                     report::fleet::fleet_node_line(test::assessed(facts), "h"), "f")
                     .nodes.at(0)
                     .nics.has_value());
    facts.doctor.ports[0] = {};  // sysfs showed GPU 0's path
    const auto read = report::fleet::parse_fleet_lines(
        report::fleet::fleet_node_line(test::assessed(facts), "h"), "f");
    EXPECT_EQ(read.nodes.at(0).nics, std::vector<std::string>{"0000:07:00.0 mlx5_0"});
}

TEST(FleetLines, AShortRecordIsOneLine) {
    report::exports::ExportFacts facts;
    facts.run.node_name = "n";
    const auto lines = report::fleet::fleet_node_lines(test::assessed(facts), "h", "1");
    ASSERT_EQ(lines.size(), 1U);
    EXPECT_EQ(lines[0], report::fleet::fleet_node_line(test::assessed(facts), "h"));
}

}  // namespace
}  // namespace peergate
