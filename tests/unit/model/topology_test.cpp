// SPDX-License-Identifier: Apache-2.0
#include "model/topology.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace peergate::model {
namespace {

using Grid = std::vector<std::vector<std::string>>;
using Islands = std::vector<std::vector<int>>;

// A topology from nvidia-smi tokens; `indices` default to 0..n-1. "?" is an unknown label.
Topology make(const Grid& grid, std::vector<int> indices = {}) {
    Topology t;
    if (indices.empty()) {
        for (std::size_t p = 0; p < grid.size(); ++p) {
            indices.push_back(static_cast<int>(p));
        }
    }
    for (int index : indices) {
        t.gpus.push_back(Gpu{.index = index});
    }
    for (const auto& row : grid) {
        std::vector<LinkLabel> labels;
        for (const auto& token : row) {
            labels.push_back(token == "?" ? LinkLabel{} : LinkLabel::parse(token).value());
        }
        t.matrix.push_back(labels);
    }
    return t;
}

const Grid kBridged{{"X", "NV12", "SYS", "SYS"},
                    {"NV12", "X", "SYS", "SYS"},
                    {"SYS", "SYS", "X", "NV12"},
                    {"SYS", "SYS", "NV12", "X"}};

TEST(Topology, IslandsAreNvlinkComponentsSortedWithSingletons) {
    EXPECT_EQ(make(kBridged).nvlink_islands(), (Islands{{0, 1}, {2, 3}}));
    const Grid chain{{"X", "NV2", "PIX", "SYS"},
                     {"NV2", "X", "NV2", "SYS"},
                     {"PIX", "NV2", "X", "SYS"},
                     {"SYS", "SYS", "SYS", "X"}};
    EXPECT_EQ(make(chain).nvlink_islands(), (Islands{{0, 1, 2}, {3}})) << "links join transitively";
    const Grid none{{"X", "PHB"}, {"PHB", "X"}};
    EXPECT_EQ(make(none).nvlink_islands(), (Islands{{0}, {1}}));
}

TEST(Topology, IslandsUseSmiIndicesAndAreOrderedBySmallestMember) {
    // Positions hold indices 5, 2, 7, 1; 5-1 and 2-7 are linked.
    const Grid grid{{"X", "SYS", "SYS", "NV4"},
                    {"SYS", "X", "NV4", "SYS"},
                    {"SYS", "NV4", "X", "SYS"},
                    {"NV4", "SYS", "SYS", "X"}};
    EXPECT_EQ(make(grid, {5, 2, 7, 1}).nvlink_islands(), (Islands{{1, 5}, {2, 7}}));
}

TEST(Topology, OneWayLinkStillJoinsAnIsland) {
    // Not a valid matrix (check_matrix refuses it), but islands must not depend on direction.
    const Grid one_way{{"X", "NV1"}, {"SYS", "X"}};
    EXPECT_EQ(make(one_way).nvlink_islands(), (Islands{{0, 1}}));
}

TEST(Topology, EmptyTopologyHasNoIslands) {
    EXPECT_TRUE(Topology{}.nvlink_islands().empty());
    EXPECT_FALSE(Topology{}.uniformly_nvlinked());
}

TEST(Topology, UniformlyNvlinkedNeedsEveryPairAndTwoGpus) {
    EXPECT_TRUE(make({{"X", "NV18", "NV18"}, {"NV18", "X", "NV18"}, {"NV18", "NV18", "X"}})
                    .uniformly_nvlinked());
    EXPECT_FALSE(make(kBridged).uniformly_nvlinked());
    EXPECT_FALSE(make({{"X", "NV18", "NV18"}, {"NV18", "X", "NODE"}, {"NV18", "NODE", "X"}})
                     .uniformly_nvlinked());
    EXPECT_FALSE(make({{"X"}}).uniformly_nvlinked()) << "one GPU has no pairs to vouch for";
    Topology short_matrix = make(kBridged);
    short_matrix.matrix.pop_back();
    EXPECT_FALSE(short_matrix.uniformly_nvlinked()) << "a missing row proves nothing";
}

TEST(Topology, NvlinkedPairsAreOrderedPairsInIndexOrder) {
    EXPECT_EQ(make(kBridged).nvlinked_pairs(),
              (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 3}, {3, 2}}));
    EXPECT_TRUE(make({{"X", "PIX"}, {"PIX", "X"}}).nvlinked_pairs().empty());
}

TEST(Topology, LabelAndPositionLookUpBySmiIndex) {
    const Topology t = make({{"X", "NV4"}, {"NV4", "X"}}, {3, 9});
    EXPECT_EQ(t.position_of(9), 1U);
    EXPECT_FALSE(t.position_of(0).has_value());
    EXPECT_EQ(t.label(9, 3), LinkLabel::nvlink(4));
    EXPECT_FALSE(t.label(3, 4).has_value());
}

TEST(Topology, SourceNamesAreTheJsonContractValues) {
    EXPECT_EQ(to_string(TopologySource::nvml), "nvml");
    EXPECT_EQ(to_string(TopologySource::nvidia_smi), "nvidia-smi");
    EXPECT_EQ(to_string(TopologySource::file), "file");
    EXPECT_EQ(to_string(TopologySource::simulated), "simulated");
    EXPECT_EQ(to_string(TopologySource::none), "none");
}

TEST(CheckMatrix, AcceptsAWellFormedMatrix) {
    EXPECT_TRUE(check_matrix(make(kBridged)).has_value());
}

struct BadMatrix {
    std::string name;
    Topology topology;
    std::string message;  // the check's name first, then the pair
};

TEST(CheckMatrix, EachFailureNamesItsCheck) {
    Topology duplicate = make({{"X", "NV4"}, {"NV4", "X"}}, {1, 1});
    Topology same_bus = make(kBridged);
    same_bus.gpus[1].pci = PciAddress::parse("0000:0B:00.0").value();
    same_bus.gpus[2].pci = PciAddress::parse("0000:0b:00.0").value();
    Topology same_uuid = make(kBridged);
    same_uuid.gpus[0].uuid = "GPU-aaaa";
    same_uuid.gpus[3].uuid = "GPU-aaaa";
    Topology short_rows = make(kBridged);
    short_rows.matrix.pop_back();
    Topology short_row = make(kBridged);
    short_row.matrix[2].pop_back();
    const std::vector<BadMatrix> cases{
        {"empty", Topology{}, "empty: no GPUs in the matrix"},
        {"duplicate", duplicate, "duplicate: GPU1 appears twice"},
        {"same bus id",
         same_bus,
         "identity: GPU1 and GPU2 report the same PCI bus id 00000000:0B:00.0"},
        {"same uuid", same_uuid, "identity: GPU0 and GPU3 report the same UUID GPU-aaaa"},
        {"rows", short_rows, "shape: 3 rows for 4 GPUs"},
        {"row", short_row, "shape: row GPU2 has 3 labels for 4 GPUs"},
        {"unknown", make({{"X", "?"}, {"?", "X"}}), "vocabulary: GPU0 to GPU1 has no known label"},
        {"diagonal",
         make({{"X", "NV4"}, {"NV4", "NV4"}}),
         "diagonal: GPU1 to itself is NV4, not X"},
        {"self off diagonal",
         make({{"X", "X"}, {"X", "X"}}),
         "diagonal: GPU0 to GPU1 is X off the diagonal"},
        {"symmetry",
         make({{"X", "NV4"}, {"NV2", "X"}}),
         "symmetry: GPU0 to GPU1 is NV4 but GPU1 to GPU0 is NV2"},
        {"symmetry class",
         make({{"X", "PIX"}, {"SYS", "X"}}),
         "symmetry: GPU0 to GPU1 is PIX but GPU1 to GPU0 is SYS"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const auto checked = check_matrix(c.topology);
        ASSERT_FALSE(checked.has_value());
        EXPECT_EQ(checked.error().code, util::ErrorCode::invalid_input);
        EXPECT_EQ(checked.error().message, c.message);
    }
}

}  // namespace
}  // namespace peergate::model
