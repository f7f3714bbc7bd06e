// SPDX-License-Identifier: Apache-2.0
// gres.conf lines as Slurm reads them (docs/ecosystem.md §3.1) and the Graphviz drawing (§4.1).
#include "export_facts_fixture.hpp"
#include "report/exports/dot.hpp"
#include "report/exports/gres.hpp"
#include "support/assessed_facts.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace peergate::report::exports {
namespace {

using test::facts_from_topo_m;

std::vector<std::string> lines_starting(const std::string& text, std::string_view prefix) {
    std::vector<std::string> out;
    for (const auto line : util::split_lines(text)) {
        if (line.starts_with(prefix)) {
            out.emplace_back(line);
        }
    }
    return out;
}

TEST(ExportGres, TypeIsASubstringOfSlurmsNvmlName) {
    EXPECT_EQ(gres_type("NVIDIA H100 80GB HBM3"), "h100_80gb_hbm3");
    EXPECT_EQ(gres_type("Tesla V100-SXM2-16GB"), "tesla_v100-sxm2-16gb");
    EXPECT_EQ(gres_type("NVIDIA"), "nvidia");
    EXPECT_EQ(gres_type(""), "gpu");
}

// Slurm reads gres.conf line by line and word by word: text from the host (a GPU's name, its
// CPU affinity, the node's name) must not start a line or a field of its own (issue 34).
TEST(ExportGres, TextFromTheHostCannotInjectALineOrAField) {
    EXPECT_EQ(gres_type("NVIDIA A100\nNodeName=evil File=/dev/sda"),
              "a100_nodename_evil_file__dev_sda");
    EXPECT_EQ(gres_type("NVIDIA A100#x\r"), "a100_x_");
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");
    facts.run.node_name = "node\nNodeName=evil";
    auto& gpus = facts.doctor.discovery.topology->gpus;
    gpus[0].name = "NVIDIA A100\nNodeName=evil Name=gpu File=/dev/sda";
    gpus[1].cpu_affinity = "0-3\nNodeName=evil Name=gpu File=/dev/sdb";
    const auto text = export_gres(facts);
    for (const auto line : util::split_lines(text)) {
        EXPECT_TRUE(line.starts_with("#") || line.starts_with("NodeName=node_NodeName_evil "))
            << line;
        if (!line.starts_with("#")) {
            EXPECT_EQ(line.find("=evil"), std::string_view::npos) << line;
        }
    }
}

// One file for many nodes: NodeName= takes a Slurm hostlist, whose brackets and commas stay.
TEST(ExportGres, ANodeNameMayBeAHostlist) {
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");
    facts.run.node_name = "gpu[01-04,07]";
    EXPECT_THAT(export_gres(facts),
                testing::HasSubstr("\nNodeName=gpu[01-04,07] AutoDetect=off Name=gpu"));
    facts.run.node_name = "n[1-3] Name=x";  // a blank still cannot start a field
    EXPECT_THAT(export_gres(facts),
                testing::HasSubstr("\nNodeName=n[1-3]_Name_x AutoDetect=off Name=gpu"));
}

TEST(ExportGres, NvswitchLinksAreSymmetricWithMinusOneOnTheDiagonal) {
    auto facts = facts_from_topo_m("ml-engineering-network_8xH100_NV18_compacted.txt");
    for (int i = 0; i < 8; ++i) {
        facts.device_minors[i] = 7 - i;  // the driver's order need not be the bus order
    }
    const auto text = export_gres(facts);
    const auto lines = lines_starting(text, "NodeName=");
    ASSERT_EQ(lines.size(), 8U);
    EXPECT_EQ(lines[0],
              "NodeName=gpu-node-07 AutoDetect=off Name=gpu Type=h100_80gb_hbm3 File=/dev/nvidia7 "
              "Links=-1,18,18,18,18,18,18,18");
    EXPECT_THAT(lines[7], testing::HasSubstr("File=/dev/nvidia0 Links=18,18,18,18,18,18,18,-1"));
    EXPECT_THAT(
        text,
        testing::HasSubstr(
            "# slurm.conf: GresTypes=gpu ; NodeName=gpu-node-07 ... Gres=gpu:h100_80gb_hbm3:8\n"));
}

TEST(ExportGres, CoresAreSlurmsLogicalCoresOfTheGpusCpus) {
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");  // CPUs 0-23 and 24-47
    // Two sockets of 12 cores with hyperthreads: CPUs 12-23 are siblings of 0-11.
    for (int cpu = 0; cpu < 48; ++cpu) {
        facts.logical_cores[cpu] = (cpu / 24) * 12 + cpu % 12;
    }
    const auto lines = lines_starting(export_gres(facts), "NodeName=");
    ASSERT_EQ(lines.size(), 4U);
    EXPECT_THAT(lines[0], testing::HasSubstr(" Cores=0-11 Links=-1,12,0,0"));
    EXPECT_THAT(lines[3], testing::HasSubstr(" Cores=12-23 Links=0,0,12,-1"));
    facts.logical_cores.erase(30);
    EXPECT_THAT(export_gres(facts), testing::HasSubstr("# GPU 2: Cores= left out"));
    EXPECT_THAT(export_gres(facts), testing::Not(testing::HasSubstr("# GPU 0: Cores= left out")));
}

TEST(ExportGres, FileLeftOutWhereTheMinorIsUnknown) {
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");
    facts.device_minors = {{0, 0}, {1, 1}, {3, 3}};
    facts.run.gres_type = "a100";
    const auto lines = lines_starting(export_gres(facts), "NodeName=");
    ASSERT_EQ(lines.size(), 4U);
    EXPECT_EQ(
        lines[1],
        "NodeName=gpu-node-07 AutoDetect=off Name=gpu Type=a100 File=/dev/nvidia1 Links=12,-1,0,0");
    EXPECT_EQ(lines[2], "NodeName=gpu-node-07 AutoDetect=off Name=gpu Type=a100 Links=0,0,-1,12");
    EXPECT_THAT(export_gres(facts), testing::HasSubstr("# GPU 2: File= left out"));
}

TEST(ExportGres, EveryGpuOfTheNodeWhateverWasExamined) {
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");
    facts.doctor.selection = {0, 1};
    EXPECT_EQ(lines_starting(export_gres(facts), "NodeName=").size(), 4U);
}

TEST(ExportGres, MixedModelsGetATypeEach) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.discovery.topology->gpus[1].name = "NVIDIA RTX 6000 Ada Generation";
    EXPECT_THAT(export_gres(facts),
                testing::HasSubstr("Gres=gpu:h100_80gb_hbm3:1,gpu:rtx_6000_ada_generation:1\n"));
}

TEST(ExportDot, ClustersPerNumaNodeAndALineWhereTheBoxesDoNotSayThePath) {
    auto facts = facts_from_topo_m("unsloth_TOPO_BRIDGED_4X.txt");
    const auto text = export_dot(test::assessed(facts));
    EXPECT_THAT(text,
                testing::StartsWith(
                    "graph peergate {\n  label=\"peergate: P2P allowed (every_pair_nvlink)\";"));
    EXPECT_THAT(text, testing::EndsWith("}\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("subgraph cluster_numa0 {\n    label=\"NUMA 0 (CPUs 0-23)\";\n  "
                                   "  gpu0 [label=\"GPU 0\\nNVIDIA H100 80GB HBM3\"];"));
    EXPECT_THAT(text, testing::HasSubstr("subgraph cluster_numa1 {"));
    // The two NVLink pairs; the SYS pairs join GPUs in two NUMA boxes, which says SYS already.
    EXPECT_EQ(lines_starting(text, "  gpu").size(), 2U);
    EXPECT_THAT(text, testing::HasSubstr("  gpu0 -- gpu1 [label=\"NV12\", penwidth=5.0];\n"));
    EXPECT_THAT(text, testing::HasSubstr("two boxes: SYS"));
    facts.run.dot_all_paths = true;
    const auto every = export_dot(test::assessed(facts));
    EXPECT_EQ(lines_starting(every, "  gpu").size(), 6U);
    EXPECT_THAT(every,
                testing::HasSubstr("  gpu0 -- gpu2 [label=\"SYS\", style=dashed, color=gray];\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("->")));
}

TEST(ExportDot, PairsThatLostDataAreRed) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.gate = {.p2p = false, .rule = "probe_failed", .reason = "data lost"};
    facts.doctor.probe = model::ProbeResult{
        .outcome = model::ProbeOutcome::fail,
        .pairs = {model::ProbePair{.src = 1, .dst = 0, .verdict = model::PairVerdict::data_lost}}};
    const auto text = export_dot(test::assessed(facts));
    EXPECT_THAT(text, testing::HasSubstr("P2P vetoed (probe_failed)"));
    EXPECT_THAT(text,
                testing::HasSubstr("  gpu0 -- gpu1 [label=\"NODE data lost\", style=dashed, "
                                   "color=red, fontcolor=red];\n"));
}

// Issue 52: a loss the verdict cache recorded on this boot is drawn as a loss found now is,
// and a probe that could not finish is marked, never drawn as lost data.
TEST(ExportDot, ACachedLossIsRedAndAProbeErrorIsOrange) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.gate = {.p2p = false, .rule = "probe_failed", .reason = "data lost"};
    facts.doctor.cached_probe = model::ProbeResult{
        .outcome = model::ProbeOutcome::fail,
        .pairs = {model::ProbePair{.src = 0, .dst = 1, .verdict = model::PairVerdict::data_lost}}};
    EXPECT_THAT(export_dot(test::assessed(facts)), testing::HasSubstr("NODE data lost"));
    facts.doctor.cached_probe->pairs[0].verdict = model::PairVerdict::error;
    const auto text = export_dot(test::assessed(facts));
    EXPECT_THAT(text, testing::HasSubstr("NODE probe error\", style=dashed, color=orange"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("data lost\"")));
}

TEST(ExportDot, QuotedStringsAreEscaped) {
    EXPECT_EQ(dot_escape(R"(a "b" \c)"), R"(a \"b\" \\c)");
    EXPECT_EQ(dot_escape("two\nlines"), "two lines");
}

}  // namespace
}  // namespace peergate::report::exports
