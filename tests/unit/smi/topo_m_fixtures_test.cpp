// SPDX-License-Identifier: Apache-2.0
// Every real `nvidia-smi topo -m` fixture, with what tests/fixtures/README.md says it concludes.
#include "sources/smi/topo_m_parser.hpp"
#include "support/fixture_files.hpp"
#include "support/topo_m_truth.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace peergate::sources::smi {
namespace {

using test::TopoMTruth;

test::TokenGrid tokens_of(const model::Topology& topology) {
    test::TokenGrid grid;
    for (const auto& row : topology.matrix) {
        std::vector<std::string> cells;
        for (const auto& label : row) {
            cells.push_back(label.to_token());
        }
        grid.push_back(cells);
    }
    return grid;
}

class TopoMFixture : public ::testing::TestWithParam<TopoMTruth> {};

TEST_P(TopoMFixture, ConcludesWhatTheReadmeSays) {
    const TopoMTruth& truth = GetParam();
    const auto parsed = parse_topo_m(test::read_fixture("topo_m", truth.file));
    if (!truth.readable) {
        ASSERT_FALSE(parsed.has_value()) << "a cut-off matrix must never be read as a verdict";
        EXPECT_EQ(parsed.error().code, util::ErrorCode::invalid_input);
        EXPECT_NE(parsed.error().message.find("unreadable"), std::string::npos)
            << parsed.error().message;
        EXPECT_NE(parsed.error().message.find(truth.reason_contains), std::string::npos)
            << parsed.error().message;
        return;
    }
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
    const model::Topology& t = *parsed;
    const std::size_t n = truth.matrix.size();
    ASSERT_EQ(t.size(), n);
    for (std::size_t p = 0; p < n; ++p) {
        SCOPED_TRACE("GPU position " + std::to_string(p));
        EXPECT_EQ(t.gpus[p].index, static_cast<int>(p));
        EXPECT_EQ(t.gpus[p].numa_node, truth.numa[p]);
        EXPECT_EQ(t.gpus[p].cpu_affinity, truth.cpu_affinity[p]);
        EXPECT_TRUE(t.gpus[p].name.empty()) << "topo -m does not print names";
        EXPECT_FALSE(t.gpus[p].pci.has_value());
    }
    // Every ordered pair, explicitly.
    EXPECT_EQ(tokens_of(t), truth.matrix);
    EXPECT_EQ(t.nvlink_islands(), truth.islands);
    EXPECT_EQ(t.source, model::TopologySource::nvidia_smi);
    EXPECT_TRUE(model::check_matrix(t).has_value());
    std::size_t nv_pairs = 0;
    for (std::size_t p = 0; p < n; ++p) {
        for (std::size_t q = 0; q < n; ++q) {
            nv_pairs += (p != q && truth.matrix[p][q].rfind("NV", 0) == 0) ? 1U : 0U;
        }
    }
    EXPECT_EQ(t.nvlinked_pairs().size(), nv_pairs);
    EXPECT_EQ(t.uniformly_nvlinked(), nv_pairs == n * (n - 1));
    // Every NIC column: its name, its device and its path to each GPU.
    ASSERT_EQ(t.nics.size(), truth.nics.size());
    for (std::size_t k = 0; k < truth.nics.size(); ++k) {
        SCOPED_TRACE("NIC column " + truth.nics[k].name);
        EXPECT_EQ(t.nics[k].name, truth.nics[k].name);
        EXPECT_EQ(t.nics[k].device, truth.nics[k].device);
        std::vector<std::string> paths;
        for (const auto& label : t.nics[k].paths) {
            paths.push_back(label.to_token());
        }
        EXPECT_EQ(paths, truth.nics[k].paths);
    }
}

INSTANTIATE_TEST_SUITE_P(AllFixtures,
                         TopoMFixture,
                         ::testing::ValuesIn(test::topo_m_truths()),
                         [](const auto& param_info) {
                             std::string name =
                                 param_info.param.file.substr(0, param_info.param.file.size() - 4);
                             std::replace_if(
                                 name.begin(),
                                 name.end(),
                                 [](char c) {
                                     return std::isalnum(static_cast<unsigned char>(c)) == 0;
                                 },
                                 '_');
                             return name;
                         });

// A fixture added without written-down conclusions would otherwise be tested by nothing.
TEST(TopoMFixtures, EveryFileInTheFixtureFolderHasATruthEntry) {
    std::set<std::string> covered;
    for (const auto& truth : test::topo_m_truths()) {
        covered.insert(truth.file);
    }
    for (const auto& name : test::fixture_names("topo_m")) {
        EXPECT_TRUE(covered.count(name) == 1)
            << name << " has no entry in tests/support/topo_m_truth.hpp";
    }
    EXPECT_EQ(covered.size(), test::fixture_names("topo_m").size());
}

TEST(TopoMFixtures, NvlinkEightWayIgnoresNicRowsAndColumns) {
    const auto t = parse_topo_m(test::read_fixture("topo_m", "unsloth_TOPO_NVLINK_8X.txt"));
    ASSERT_TRUE(t.has_value()) << t.error().message;
    ASSERT_EQ(t->size(), 8U);
    for (const auto& row : t->matrix) {
        ASSERT_EQ(row.size(), 8U) << "NIC0/NIC1 columns must not become matrix cells";
    }
    // GPU4's NIC labels are PIX; had they leaked into the GPU columns they would show here.
    EXPECT_EQ(t->label(4, 0)->to_token(), "NV18");
    EXPECT_EQ(t->label(7, 6)->to_token(), "NV18");
    EXPECT_TRUE(t->uniformly_nvlinked());
    EXPECT_EQ(t->nvlinked_pairs().size(), 56U);
}

TEST(TopoMFixtures, RowTruncatedEightWayIsUnreadableAlthoughEveryArrivedRowIsNvlink) {
    const std::string text = test::read_fixture("topo_m", "unsloth_ROW_TRUNCATED_8X.txt");
    const auto parsed = parse_topo_m(text);
    ASSERT_FALSE(parsed.has_value());
    // The rows that did arrive are all NV18: a guessing parser would call the box uniform.
    EXPECT_NE(text.find("GPU3\tNV18\tNV18\tNV18\t X "), std::string::npos);
    EXPECT_EQ(text.find("\nGPU4\t"), std::string::npos);
}

}  // namespace
}  // namespace peergate::sources::smi
