// SPDX-License-Identifier: Apache-2.0
// The drawing shows the fabric and the faults (issue 35 item 7, docs/export.md dot): an
// NVSwitch board is one fabric node that every GPU joins, a DGX-1's cube mesh is not buried
// under PCIe lines, and links down, lost data, P2P slower than staged and ACS redirect each
// stand out, with a legend that names what is drawn.
#include "export_facts_fixture.hpp"
#include "report/exports/dot.hpp"
#include "support/assessed_facts.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace peergate::report::exports {
namespace {

using test::facts_from_topo_m;

std::size_t lines_with(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (const auto line : util::split_lines(text)) {
        count += line.find(part) != std::string_view::npos ? 1U : 0U;
    }
    return count;
}

// Every GPU on the fabric by its 18 links; GPU 3 with links 4 and 9 down.
ExportFacts nvswitch_board() {
    auto facts = facts_from_topo_m("unsloth_TOPO_NVLINK_8X.txt");
    for (int gpu = 0; gpu < 8; ++gpu) {
        policy::doctor::GpuLinks links{.gpu = gpu, .slots = 18, .to_switch = 18};
        if (gpu == 3) {
            links.down = {4, 9};
            links.to_switch = 16;
        }
        facts.doctor.links.push_back(links);
    }
    return facts;
}

TEST(ExportDotFabric, AnNvswitchBoardIsOneFabricNode) {
    const auto text = export_dot(test::assessed(nvswitch_board()));
    EXPECT_THAT(text,
                testing::HasSubstr("  nvswitch [label=\"NVSwitch fabric\", shape=hexagon];\n"));
    EXPECT_EQ(lines_with(text, " -- nvswitch "), 8U);
    EXPECT_EQ(lines_with(text, " -- gpu"), 0U) << text;  // no GPU-to-GPU hairball
    EXPECT_THAT(text, testing::HasSubstr("  gpu0 -- nvswitch [label=\"NV18\", penwidth=5.0];\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("  gpu3 -- nvswitch [label=\"NV16 (2 down)\", "
                                   "penwidth=4.6, color=red, fontcolor=red];\n"));
    EXPECT_THAT(text, testing::HasSubstr("NVLinks 16 of 18 up; down: 4,9\", color=red"));
    EXPECT_THAT(text, testing::HasSubstr("subgraph cluster_legend"));
    EXPECT_THAT(text, testing::HasSubstr("red GPU: NVLinks down"));
}

TEST(ExportDotFabric, ACubeMeshShowsOnlyItsNvlinks) {
    auto facts = facts_from_topo_m("rapidsai-ucx-py_8xV100_DGX1_mlx5_nic_rows.txt");
    const auto text = export_dot(test::assessed(facts));
    EXPECT_EQ(lines_with(text, "[label=\"NV"), 16U) << text;
    EXPECT_EQ(lines_with(text, "style=dashed"), 0U) << text;  // NVLink joins every GPU
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("grey dashes")));
    facts.run.dot_all_paths = true;  // on request, the 12 PCIe pairs too
    EXPECT_EQ(
        lines_with(export_dot(test::assessed(facts)), "[label=\"SYS\", style=dashed, color=gray]"),
        12U);
}

TEST(ExportDotFabric, EachFaultHasItsColourAndItsLegend) {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    facts.doctor.pairs[0].p2p_gbps = 9.5;  // 0 -> 1
    facts.doctor.pairs[0].staged_gbps = 20.25;
    facts.doctor.pairs[1].acs = "redirect";
    const auto text = export_dot(test::assessed(facts));
    EXPECT_THAT(text,
                testing::HasSubstr("  gpu0 -- gpu1 [label=\"NODE P2P 9.5 < staged 20.2 GB/s, "
                                   "ACS redirect\", style=dashed, color=darkorange, "
                                   "fontcolor=darkorange];\n"));
    EXPECT_THAT(text, testing::HasSubstr("orange line: P2P measured slower than staged copies"));
    EXPECT_THAT(text, testing::HasSubstr("purple: ACS redirect"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("copies between the two lost data")));
}

TEST(ExportDotFabric, LostDataOnTheFabricIsDrawnWithoutMovingTheLayout) {
    auto facts = nvswitch_board();
    facts.doctor.probe = model::ProbeResult{
        .outcome = model::ProbeOutcome::fail,
        .pairs = {model::ProbePair{.src = 1, .dst = 5, .verdict = model::PairVerdict::data_lost}}};
    EXPECT_THAT(export_dot(test::assessed(facts)),
                testing::HasSubstr("  gpu1 -- gpu5 [label=\"NV18 data lost\", penwidth=5.0, "
                                   "color=red, fontcolor=red, constraint=false];\n"));
}

}  // namespace
}  // namespace peergate::report::exports
