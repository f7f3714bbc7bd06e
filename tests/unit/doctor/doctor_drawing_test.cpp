// SPDX-License-Identifier: Apache-2.0
// doctor --html's drawing of the machine and its pair grid (report/doctor/machine_layout.cpp,
// machine_svg.cpp, pair_grid.cpp).
#include "../policy/gate_test_support.hpp"
#include "policy/assess/assessment.hpp"
#include "report/doctor/machine_layout.hpp"
#include "report/doctor/machine_svg.hpp"
#include "report/doctor/pair_grid.hpp"

#include <gtest/gtest.h>

namespace peergate::report::doctor {
namespace {

using policy::doctor::DoctorInput;
using policy::doctor::DoctorReport;
using policy::doctor::PairLayers;

bool has_text(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

policy::assess::Assessment assessed(const DoctorInput& input) {
    return policy::assess::assess(input, DoctorReport{}, {});
}

model::ProbePair probed(int src, int dst, model::PairVerdict verdict) {
    return model::ProbePair{.src = src, .dst = dst, .verdict = verdict};
}

model::PciPort port(const char* address, bool redirect = false) {
    model::PciPort p{.address = model::PciAddress::parse(address).value()};
    if (redirect) {
        p.acs = model::AcsControl{.bits = model::AcsControl::kRequestRedirect};
    }
    return p;
}

// Two PCIe GPUs under one switch port with ACS redirect, on two NUMA nodes' worth of CPUs.
DoctorInput two_pcie_gpus() {
    DoctorInput input;
    auto t = test::pcie_box(2, "NVIDIA RTX 6000 Ada Generation", "PXB");
    t.gpus[0].numa_node = 0;
    t.gpus[0].cpu_affinity = "0-31";
    t.gpus[1].numa_node = 0;
    t.gpus[0].pci = model::PciAddress::parse("0000:41:00.0").value();
    t.gpus[1].pci = model::PciAddress::parse("0000:42:00.0").value();
    input.discovery.topology = t;
    input.ports[0] = {port("0000:40:01.0", true), port("0000:00:03.0")};
    input.ports[1] = {port("0000:40:02.0"), port("0000:00:03.0")};
    input.host.iommu = model::IommuMode::translating;
    input.host.hypervisor = false;
    for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
        input.pairs.push_back(PairLayers{.src = src,
                                         .dst = dst,
                                         .label = "PXB",
                                         .nvml = {"OK", "OK", "NS", "NS", "OK"},
                                         .cuda_can_access_peer = true,
                                         .probe = src == 0 ? "data_lost" : "ok"});
    }
    input.probe = model::ProbeResult{.outcome = model::ProbeOutcome::fail,
                                     .pairs = {probed(0, 1, model::PairVerdict::data_lost),
                                               probed(1, 0, model::PairVerdict::ok)}};
    return input;
}

TEST(MachineLayout, GroupsGpusByNumaNodeAndCentresSharedPortsOverTheirGpus) {
    const auto input = two_pcie_gpus();
    const auto layout = lay_out_machine(input, 1);
    ASSERT_EQ(layout.groups.size(), 1U);
    EXPECT_EQ(layout.groups[0].title, "NUMA 0 · CPUs 0-31");
    ASSERT_EQ(layout.leaves.size(), 2U);
    EXPECT_EQ(layout.leaves[0].title, "GPU0");
    EXPECT_EQ(layout.leaves[0].bus, "41:00.0");
    ASSERT_EQ(layout.ports.size(), 3U);  // two switch ports, one root port, each once
    const PortBox* root = nullptr;
    for (const auto& p : layout.ports) {
        if (!p.parent) {
            root = &p;
        }
    }
    ASSERT_NE(root, nullptr);
    EXPECT_DOUBLE_EQ(root->box.cx(), (layout.leaves[0].box.cx() + layout.leaves[1].box.cx()) / 2);
    for (const auto& p : layout.ports) {
        if (p.parent) {
            EXPECT_LT(p.box.y, root->box.y) << "root ports on the bottom row";
            EXPECT_GT(p.box.y, layout.band_top + layout.band_height);
        }
    }
    ASSERT_TRUE(layout.root.has_value());
    EXPECT_FALSE(layout.fabric.has_value());
}

TEST(MachineLayout, NoTopologyGivesNoDrawing) {
    const DoctorInput input;
    EXPECT_EQ(lay_out_machine(input, 0).width, 0);
    EXPECT_EQ(machine_svg(input, DoctorReport{}, assessed(input)), "");
}

TEST(MachineSvg, DrawsTheLossyPairRedAndTheTranslatingIommuAndTheAcsRedirect) {
    const auto input = two_pcie_gpus();
    const auto problems = pair_problems(assessed(input));
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0].what, "data lost");
    const auto svg = machine_svg(input, DoctorReport{}, assessed(input));
    EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    EXPECT_TRUE(has_text(svg, "class=\"problem bad\""));
    EXPECT_TRUE(has_text(svg, "GPU0 ↔ GPU1: data lost"));
    EXPECT_TRUE(has_text(svg, "PCIe peer copies can be dropped silently here"));
    EXPECT_TRUE(has_text(svg, "IOMMU translating: PCIe peer traffic goes through it"));
    EXPECT_TRUE(has_text(svg, "40:01.0 ACS redirect"));
    EXPECT_FALSE(has_text(svg, "<script"));
    EXPECT_FALSE(has_text(svg, "href"));
}

TEST(MachineSvg, AnNvswitchBoxIsOneFabricAndAGpuWithLinksDownIsMarked) {
    DoctorInput input;
    input.discovery.topology = test::uniform_nvlink(4, "NVIDIA H100 80GB HBM3");
    for (int g = 0; g < 4; ++g) {
        policy::doctor::GpuLinks links{.gpu = g, .slots = 18, .to_switch = 18};
        if (g == 2) {
            links.down = {3, 7};
            links.to_switch = 16;
        }
        input.links.push_back(links);
    }
    DoctorReport report;
    report.findings.push_back(model::Finding{.code = peergate::model::FindingCode::nvlink_down,
                                             .severity = model::Severity::error,
                                             .gpus = {2}});
    const auto svg = machine_svg(input, report, assessed(input));
    EXPECT_TRUE(has_text(svg, "NVSwitch fabric"));
    EXPECT_TRUE(has_text(svg, "NV16 (2 down)"));
    EXPECT_TRUE(has_text(svg, "class=\"nv down\""));
    EXPECT_TRUE(has_text(svg, ">NV18<"));
    EXPECT_TRUE(has_text(svg, "class=\"gpu bad\""));
    EXPECT_TRUE(has_text(svg, "NVLinks down"));
    EXPECT_FALSE(has_text(svg, "<path d=\"M")) << "no pairwise arcs over a switch";
}

TEST(MachineSvg, BridgedPairsAreArcsWithTheirLinkCount) {
    DoctorInput input;
    input.discovery.topology = test::bridged_a100_4x();
    const auto svg = machine_svg(input, DoctorReport{}, assessed(input));
    EXPECT_EQ(std::count_if(svg.begin(), svg.end(), [](char c) { return c == 'Q'; }), 2);
    EXPECT_TRUE(has_text(svg, ">NV12<"));
    EXPECT_TRUE(has_text(svg, "NUMA node unknown"));
}

TEST(MachineSvg, NamesAreEscaped) {
    DoctorInput input;
    auto t = test::pcie_box(2, "<GPU & \"x\">");
    input.discovery.topology = t;
    const auto svg = machine_svg(input, DoctorReport{}, assessed(input));
    EXPECT_FALSE(has_text(svg, "<GPU"));
    EXPECT_TRUE(has_text(svg, "&lt;GPU &amp; &quot;x&quot;&gt;"));
}

TEST(PairGrid, ColoursEachOrderedPairByItsState) {
    using policy::assess::PairState;
    const auto input = two_pcie_gpus();
    const auto assessment = assessed(input);
    EXPECT_EQ(css_class(assessment.pair(0, 1)->state), "lost");
    EXPECT_EQ(css_class(assessment.pair(1, 0)->state), "intact");
    EXPECT_EQ(css_class(PairState::nvlink), "nvlink");
    EXPECT_EQ(css_class(PairState::pcie_unverified), "unverified");
    EXPECT_EQ(css_class(PairState::staged_only), "off");
    EXPECT_EQ(css_class(PairState::slower_than_staged), "slow");
    EXPECT_EQ(css_class(PairState::probe_error), "unfinished") << "never painted as data lost";
}

TEST(MachineSvg, AProbeErrorIsAmberAndNamedSoNotDataLost) {
    auto input = two_pcie_gpus();
    input.probe->pairs = {probed(0, 1, model::PairVerdict::error),
                          probed(1, 0, model::PairVerdict::ok)};
    const auto problems = pair_problems(assessed(input));
    ASSERT_EQ(problems.size(), 1U);
    EXPECT_EQ(problems[0].what, "probe error");
    EXPECT_FALSE(problems[0].severe);
    const auto grid = pair_grid_html(input, assessed(input));
    EXPECT_TRUE(has_text(grid, "<td class=\"pair unfinished\" title=\"GPU0 to GPU1\">"));
    EXPECT_FALSE(has_text(grid, "<td class=\"pair lost"));
}

TEST(PairGrid, ACachedVerdictIsShownWhereNoProbeRanNow) {
    auto input = two_pcie_gpus();
    input.cached_probe = input.probe;
    input.probe.reset();
    for (auto& pair : input.pairs) {
        pair.probe.clear();
    }
    const auto grid = pair_grid_html(input, assessed(input));
    EXPECT_TRUE(has_text(grid, "<td class=\"pair lost contradiction\" title=\"GPU0 to GPU1\">"));
    EXPECT_TRUE(has_text(grid, "probe data_lost (cached, this boot)"));
    EXPECT_TRUE(has_text(grid, "probe ok (cached, this boot)"));
    EXPECT_FALSE(has_text(grid, "probe not run"));
}

TEST(PairGrid, TheContradictionStandsOutAndEveryCodeIsExplained) {
    const auto input = two_pcie_gpus();
    const auto grid = pair_grid_html(input, assessed(input));
    EXPECT_TRUE(has_text(grid, "<td class=\"pair lost contradiction\" title=\"GPU0 to GPU1\">"));
    EXPECT_TRUE(has_text(grid, "capabilities say yes, data lost"));
    EXPECT_TRUE(has_text(grid, "<td class=\"pair intact\" title=\"GPU1 to GPU0\">"));
    EXPECT_TRUE(has_text(grid, "<td class=\"self\"></td>"));
    for (const char* code : {"<b>OK</b>",
                             "<b>CNS</b>",
                             "<b>GNS</b>",
                             "<b>NS</b>",
                             "<b>TNS</b>",
                             "<b>DR</b>",
                             "<b>U</b>",
                             "<b>not run</b>",
                             "<b>staged</b>"}) {
        EXPECT_TRUE(has_text(grid, code)) << code;
    }
    EXPECT_EQ(pair_grid_html(DoctorInput{}, assessed(DoctorInput{})), "");
}

TEST(PairGrid, TheBandwidthHeatmapShowsBothRatesAndTheirRatio) {
    DoctorInput input;
    EXPECT_EQ(bandwidth_html(input), "") << "nothing measured";
    input.pairs = {PairLayers{.src = 0, .dst = 1, .p2p_gbps = 48.0, .staged_gbps = 12.0},
                   PairLayers{.src = 1, .dst = 0, .p2p_gbps = 5.0, .staged_gbps = 11.0}};
    const auto map = bandwidth_html(input);
    EXPECT_TRUE(has_text(map, "48.0 / 12.0<br>4.00×"));
    EXPECT_TRUE(has_text(map, "<td class=\"pair slow\">5.0 / 11.0<br>0.45×</td>"));
    EXPECT_TRUE(has_text(map, "hsl(210 70% 52%)")) << "the fastest pair is the darkest";
}

TEST(PairGrid, AnNvlinkPairWithFewerLinksThanItsPeersIsOutlined) {
    DoctorInput input;
    input.pairs = {PairLayers{.src = 0, .dst = 1, .label = "NV18"},
                   PairLayers{.src = 0, .dst = 3, .label = "NV16"}};
    const auto grid = pair_grid_html(input, assessed(input));
    EXPECT_TRUE(has_text(grid, "<td class=\"pair nvlink fewer\" title=\"GPU0 to GPU3\">"));
    EXPECT_TRUE(has_text(grid, "fewer links than NV18"));
    EXPECT_TRUE(has_text(grid, "<td class=\"pair nvlink\" title=\"GPU0 to GPU1\">"));
}

}  // namespace
}  // namespace peergate::report::doctor
