// SPDX-License-Identifier: Apache-2.0
// The NICs of `nvidia-smi topo -m` (issue 33): each NIC column's path to each GPU, its NIC
// row held to the GPU rows, and the NIC Legend's device names. A NIC that cannot be placed
// with certainty makes the whole output unreadable, naming the line and the check.
#include "sources/smi/topo_m_parser.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sources::smi {
namespace {

using model::LinkKind;
using model::LinkLabel;

// Two GPUs and two NICs as a driver with the NIC Legend prints them.
constexpr const char* kWithLegend =
    "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tNV8\tPIX\tSYS\t0-7\t0\t\tN/A\n"
    "GPU1\tNV8\t X \tSYS\tNODE\t8-15\t1\t\tN/A\n"
    "NIC0\tPIX\tSYS\t X \tSYS\n"
    "NIC1\tSYS\tNODE\tSYS\t X \n"
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n"
    "\n"
    "NIC Legend:\n"
    "\n"
    "  NIC0: mlx5_0\n"
    "  NIC1: mlx5_bond_0\n";

std::string error_of(const std::string& text) {
    const auto parsed = parse_topo_m(text);
    EXPECT_FALSE(parsed.has_value()) << "expected unreadable:\n" << text;
    return parsed ? std::string() : parsed.error().message;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    return pos == std::string::npos ? text : text.replace(pos, from.size(), to);
}

TEST(TopoMNics, EachNicKeepsItsPathToEveryGpuAndItsLegendName) {
    const auto t = parse_topo_m(kWithLegend);
    ASSERT_TRUE(t.has_value()) << t.error().message;
    ASSERT_EQ(t->nics.size(), 2U);
    EXPECT_EQ(t->nics[0].name, "NIC0");
    EXPECT_EQ(t->nics[0].device, "mlx5_0");
    EXPECT_EQ(t->nics[0].paths,
              (std::vector<LinkLabel>{LinkLabel::of(LinkKind::pix), LinkLabel::of(LinkKind::sys)}));
    EXPECT_EQ(t->nics[1].device, "mlx5_bond_0");
    EXPECT_EQ(t->nics[1].paths[1], LinkLabel::of(LinkKind::node));
    EXPECT_EQ(t->gpus[1].numa_node, 1);
}

TEST(TopoMNics, ColumnsNamedByTheirDeviceAreTheirOwnDevice) {
    const auto t = parse_topo_m(
        "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\n"
        "GPU0\t X \tPHB\tPIX\t0-7\n"
        "GPU1\tPHB\t X \tPHB\t0-7\n"
        "mlx5_0\tPIX\tPHB\t X \n");
    ASSERT_TRUE(t.has_value()) << t.error().message;
    ASSERT_EQ(t->nics.size(), 1U);
    EXPECT_EQ(t->nics[0].name, "mlx5_0");
    EXPECT_EQ(t->nics[0].device, "mlx5_0");
}

TEST(TopoMNics, WithoutALegendTheDeviceIsUnknownNotGuessed) {
    const std::string text =
        std::string(kWithLegend).substr(0, std::string(kWithLegend).find("\nLegend:"));
    const auto t = parse_topo_m(text);
    ASSERT_TRUE(t.has_value()) << t.error().message;
    EXPECT_EQ(t->nics[0].device, "");
    EXPECT_EQ(t->nics[1].device, "");
    EXPECT_EQ(t->nics[1].paths, parse_topo_m(kWithLegend)->nics[1].paths);
}

TEST(TopoMNics, ALegendCutBeforeItsLastLineIsUnreadable) {
    const std::string text = replaced(kWithLegend, "  NIC1: mlx5_bond_0\n", "");
    EXPECT_NE(error_of(text).find("the NIC Legend has no line for NIC1 (output cut off?)"),
              std::string::npos);
}

TEST(TopoMNics, ALegendThatNamesNoColumnOrOneTwiceIsUnreadable) {
    EXPECT_NE(error_of(std::string(kWithLegend) + "  NIC2: mlx5_2\n")
                  .find("line 16: the NIC Legend names NIC2, which is no NIC<n> column"),
              std::string::npos);
    EXPECT_NE(error_of(std::string(kWithLegend) + "  NIC0: mlx5_9\n")
                  .find("the NIC Legend names NIC0 twice"),
              std::string::npos);
}

TEST(TopoMNics, AMissingNicRowIsUnreadable) {
    const std::string text = replaced(kWithLegend, "NIC1\tSYS\tNODE\tSYS\t X \n", "");
    EXPECT_NE(error_of(text).find("missing row for NIC NIC1 (output cut off?)"), std::string::npos);
}

TEST(TopoMNics, ANicRowTwiceIsUnreadable) {
    const std::string text = replaced(kWithLegend,
                                      "NIC1\tSYS\tNODE\tSYS\t X \n",
                                      "NIC1\tSYS\tNODE\tSYS\t X \nNIC1\tSYS\tNODE\tSYS\t X \n");
    EXPECT_NE(error_of(text).find("line 6: NIC row NIC1 appears twice"), std::string::npos);
}

// nvidia-smi prints one symmetric matrix: a NIC row that disagrees with a GPU row means a
// cell moved, and nothing says which of the two is right.
TEST(TopoMNics, ANicRowThatDisagreesWithAGpuRowIsUnreadable) {
    const std::string text =
        replaced(kWithLegend, "NIC1\tSYS\tNODE\tSYS\t X \n", "NIC1\tSYS\tPIX\tSYS\t X \n");
    EXPECT_NE(error_of(text).find(
                  "line 5: NIC row NIC1 has 'PIX' under GPU1, but row GPU1 has 'NODE' under NIC1"),
              std::string::npos);
}

TEST(TopoMNics, XOutsideANicsOwnColumnIsUnreadable) {
    auto why =
        error_of(replaced(kWithLegend, "NIC0\tPIX\tSYS\t X \tSYS\n", "NIC0\tPIX\tSYS\tSYS\t X \n"));
    EXPECT_NE(why.find("NIC row NIC0 has 'SYS' under NIC0, but its own column must be X"),
              std::string::npos)
        << why;
    why = error_of(replaced(kWithLegend, "GPU0\t X \tNV8\tPIX", "GPU0\t X \tNV8\t X "));
    EXPECT_NE(why.find("row GPU0 has 'X' under NIC0, not a link label"), std::string::npos) << why;
}

TEST(TopoMNics, ANicRowWithAnAffinityCellIsUnreadable) {
    const std::string text =
        replaced(kWithLegend, "NIC0\tPIX\tSYS\t X \tSYS\n", "NIC0\tPIX\tSYS\t X \tSYS\t0-7\n");
    EXPECT_NE(error_of(text).find("line 4: NIC row NIC0 has 5 cells for 4 GPU and NIC columns"),
              std::string::npos);
}

}  // namespace
}  // namespace peergate::sources::smi
