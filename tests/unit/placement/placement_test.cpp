// SPDX-License-Identifier: Apache-2.0
// peergate place: the solvers against a brute-force enumerator and on known machines.
#include "policy/placement/placement.hpp"

#include "pipeline/discover.hpp"
#include "placement_support.hpp"
#include "sources/smi/topo_m_parser.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace peergate::placement_test {
namespace {

using Groups = std::vector<std::vector<int>>;

policy::placement::PlacementResult must_place(const model::Topology& t,
                                              policy::placement::PlacementRequest request) {
    auto result = policy::placement::place(t, request);
    EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
    return result ? *result : policy::placement::PlacementResult{};
}

std::string read_fixture(const std::string& name) {
    std::ifstream in(std::string(PEERGATE_TEST_FIXTURES) + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// DGX-1 (V100, hybrid cube mesh): `nvidia-smi topo -m` as printed in Microway's
// "nvidia-smi: Control Your GPUs" guide (DGX-1 section), NUMA nodes as on the same
// layout's 8x V100-SXM2 report; see tests/fixtures/README.md ("place").
model::Topology dgx1() {
    return topology_from({{"X", "NV1", "NV1", "NV2", "NV2", "SYS", "SYS", "SYS"},
                          {"NV1", "X", "NV2", "NV1", "SYS", "NV2", "SYS", "SYS"},
                          {"NV1", "NV2", "X", "NV2", "SYS", "SYS", "NV1", "SYS"},
                          {"NV2", "NV1", "NV2", "X", "SYS", "SYS", "SYS", "NV1"},
                          {"NV2", "SYS", "SYS", "SYS", "X", "NV1", "NV1", "NV2"},
                          {"SYS", "NV2", "SYS", "SYS", "NV1", "X", "NV2", "NV1"},
                          {"SYS", "SYS", "NV1", "SYS", "NV1", "NV2", "X", "NV2"},
                          {"SYS", "SYS", "SYS", "NV1", "NV2", "NV1", "NV2", "X"}},
                         {0, 0, 0, 0, 1, 1, 1, 1});
}

// 500 random topologies (n <= 10) and every K, in five shards of 100 to keep each test short.
void expect_shard_matches_brute_force(int shard) {
    std::mt19937 rng(20261129U + static_cast<unsigned>(shard));
    std::uniform_int_distribution<int> size(2, 10);
    for (int trial = 0; trial < 100; ++trial) {
        const int n = size(rng);
        const auto t = random_topology(rng, n);
        for (int k = 1; k <= n; ++k) {
            expect_place_matches_brute_force(t,
                                             policy::placement::PlacementRequest{.size = k},
                                             "shard " + std::to_string(shard) + " trial " +
                                                 std::to_string(trial) + " n " + std::to_string(n) +
                                                 " K " + std::to_string(k));
        }
    }
}

TEST(PlacementExact, MatchesBruteForceOnRandomTopologiesShard0) {
    expect_shard_matches_brute_force(0);
}

TEST(PlacementExact, MatchesBruteForceOnRandomTopologiesShard1) {
    expect_shard_matches_brute_force(1);
}

TEST(PlacementExact, MatchesBruteForceOnRandomTopologiesShard2) {
    expect_shard_matches_brute_force(2);
}

TEST(PlacementExact, MatchesBruteForceOnRandomTopologiesShard3) {
    expect_shard_matches_brute_force(3);
}

TEST(PlacementExact, MatchesBruteForceOnRandomTopologiesShard4) {
    expect_shard_matches_brute_force(4);
}

TEST(PlacementExact, MatchesBruteForceWithCandidatesCountAndRequired) {
    std::mt19937 rng(42);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = std::uniform_int_distribution<int>(3, 10)(rng);
        const auto t = random_topology(rng, n);
        if (const auto request = random_request(rng, n, 1, 4, 2)) {
            expect_place_matches_brute_force(
                t, *request, "trial " + std::to_string(trial) + " " + describe(*request));
        }
    }
}

TEST(PlacementMachines, MatchBruteForceForEveryK) {
    for (const char* name : {"place/dgx1_v100_hybrid_cube_mesh.txt",
                             "topo_m/unsloth_TOPO_BRIDGED_4X.txt",
                             "topo_m/unsloth_TOPO_NVLINK_8X.txt",
                             "topo_m/ml-engineering-network_8xH100_NV18_compacted.txt"}) {
        const auto parsed = sources::smi::parse_topo_m(read_fixture(name));
        ASSERT_TRUE(parsed.has_value()) << name << ": " << parsed.error().message;
        for (int k = 1; k <= static_cast<int>(parsed->size()); ++k) {
            expect_place_matches_brute_force(
                *parsed, {.size = k}, std::string(name) + " K " + std::to_string(k));
        }
    }
}

TEST(PlacementMachines, BuiltInMachinesMatchBruteForceForEveryK) {
    int machines = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PEERGATE_SOURCE_DIR) + "/machines")) {
        const auto discovery = pipeline::read_topology_file(entry.path().string());
        if (!discovery.topology) {
            continue;  // a single-GPU machine has no interconnect matrix to place on
        }
        ++machines;
        for (int k = 1; k <= static_cast<int>(discovery.topology->size()); ++k) {
            expect_place_matches_brute_force(
                *discovery.topology,
                {.size = k},
                entry.path().filename().string() + " K " + std::to_string(k));
        }
    }
    EXPECT_GE(machines, 5);
}

TEST(PlacementMachines, Dgx1SizeFourKeepsEachCubeFace) {
    const auto result = must_place(dgx1(), {.size = 4});
    EXPECT_EQ(sorted_groups(result), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
    EXPECT_TRUE(result.exact);
    EXPECT_EQ(result.objective.min_bottleneck, 1001);  // NV1 inside each face
    EXPECT_EQ(result.groups[0].bottleneck_label->to_token(), "NV1");
    EXPECT_EQ(result.groups[0].numa_nodes, (std::vector<int>{0}));
}

TEST(PlacementMachines, Dgx1SizeTwoPairsGpusJoinedByTwoLinks) {
    const auto result = must_place(dgx1(), {.size = 2});
    // Both perfect matchings of the NV2 ring score 4 x NV2; this one stays in one NUMA node.
    EXPECT_EQ(sorted_groups(result), (Groups{{0, 3}, {1, 2}, {4, 7}, {5, 6}}));
    for (const auto& group : result.groups) {
        EXPECT_EQ(group.bottleneck_label->to_token(), "NV2");
        EXPECT_EQ(group.numa_nodes.size(), 1U);
    }
    EXPECT_EQ(result.objective.numa_spans, 4);
}

TEST(PlacementMachines, Dgx1FromTheSavedText) {
    const auto parsed =
        sources::smi::parse_topo_m(read_fixture("place/dgx1_v100_hybrid_cube_mesh.txt"));
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
    EXPECT_EQ(sorted_groups(must_place(*parsed, {.size = 4})),
              (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(PlacementMachines, BridgedA100PairsFollowTheBridges) {
    const auto parsed =
        sources::smi::parse_topo_m(read_fixture("topo_m/unsloth_TOPO_BRIDGED_4X.txt"));
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
    const auto result = must_place(*parsed, {.size = 2});
    EXPECT_EQ(sorted_groups(result), (Groups{{0, 1}, {2, 3}}));
    EXPECT_EQ(result.objective.min_bottleneck, 1012);
    EXPECT_TRUE(result.exact);
}

TEST(PlacementMachines, NvswitchSizeFourFollowsNumaNodes) {
    const auto parsed =
        sources::smi::parse_topo_m(read_fixture("topo_m/unsloth_TOPO_NVLINK_8X.txt"));
    ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
    const auto result = must_place(*parsed, {.size = 4});
    EXPECT_EQ(sorted_groups(result), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
    EXPECT_EQ(result.method, policy::placement::PlacementMethod::uniform);
    EXPECT_TRUE(result.exact);
    EXPECT_EQ(result.objective.numa_spans, 2);
}

TEST(PlacementMachines, NvswitchSizeThreeLeavesOnePerNode) {
    const auto parsed =
        sources::smi::parse_topo_m(read_fixture("topo_m/unsloth_TOPO_NVLINK_8X.txt"));
    ASSERT_TRUE(parsed.has_value());
    const auto result = must_place(*parsed, {.size = 3});
    EXPECT_EQ(sorted_groups(result), (Groups{{0, 1, 2}, {4, 5, 6}}));
    EXPECT_EQ(result.leftover, (std::vector<int>{3, 7}));
}

TEST(PlacementRequest, RequireForcesGpusIntoTheFirstGroup) {
    const auto result = must_place(dgx1(), {.size = 4, .required = {0, 4}});
    ASSERT_EQ(result.groups.size(), 2U);
    EXPECT_TRUE(result.groups[0].required);
    EXPECT_EQ(result.groups[0].gpus.front(), 0);
    EXPECT_NE(std::find(result.groups[0].gpus.begin(), result.groups[0].gpus.end(), 4),
              result.groups[0].gpus.end());
    EXPECT_TRUE(result.exact);
}

TEST(PlacementRequest, RequiredGroupIsListedFirst) {
    const auto result = must_place(dgx1(), {.size = 2, .required = {6}});
    ASSERT_FALSE(result.groups.empty());
    EXPECT_TRUE(result.groups[0].required);
    EXPECT_NE(std::find(result.groups[0].gpus.begin(), result.groups[0].gpus.end(), 6),
              result.groups[0].gpus.end());
}

TEST(PlacementRequest, GpusRestrictTheCandidates) {
    const auto result = must_place(dgx1(), {.size = 2, .candidates = {0, 1, 4, 5}});
    EXPECT_EQ(sorted_groups(result),
              (Groups{{0, 4}, {1, 5}}));  // NV2 both, over the NV1 pair {0,1}
    EXPECT_TRUE(result.leftover.empty());
}

TEST(PlacementRequest, ImpossibleSizesAreErrors) {
    EXPECT_FALSE(policy::placement::place(dgx1(), {.size = 3, .count = 3}).has_value());
    EXPECT_FALSE(policy::placement::place(dgx1(), {.size = 9}).has_value());
    EXPECT_FALSE(policy::placement::place(dgx1(), {.size = 0}).has_value());
    EXPECT_FALSE(policy::placement::place(dgx1(), {.size = 2, .candidates = {0, 9}}).has_value());
    EXPECT_FALSE(policy::placement::place(dgx1(), {.size = 2, .required = {0, 1, 2}}).has_value());
    EXPECT_FALSE(
        policy::placement::place(dgx1(), {.size = 2, .candidates = {0, 1}, .required = {5}})
            .has_value());
    const auto error = policy::placement::place(dgx1(), {.size = 4, .count = 3}).error();
    EXPECT_NE(error.message.find("impossible"), std::string::npos) << error.message;
}

TEST(PlacementBandwidth, MeasuredSlowerDirectionDecides) {
    // Labels make {0,3},{1,2} best; measurements say 0-1 and 2-3 are the fast pairs.
    std::vector<policy::placement::BandwidthSample> samples;
    for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b) {
            if (a != b) {
                const bool fast = (a / 2) == (b / 2);
                samples.push_back({a, b, fast ? 90.0 : 20.0});
            }
        }
    }
    samples.push_back({1, 0, 40.0});  // a second, slower sample in one direction is not the best
    samples.push_back({3, 2, 95.0});
    auto t = dgx1();
    auto result = must_place(t, {.size = 2, .candidates = {0, 1, 2, 3}, .bandwidth = samples});
    EXPECT_EQ(sorted_groups(result), (Groups{{0, 1}, {2, 3}}));
    EXPECT_TRUE(result.measured);
    EXPECT_EQ(result.objective.min_bottleneck, 9000);  // 90 GB/s in hundredths
    samples.erase(samples.begin());                    // 0->1 gone, 1->0 still there
    EXPECT_TRUE(
        policy::placement::place(t, {.size = 2, .candidates = {0, 1, 2, 3}, .bandwidth = samples})
            .has_value());
    EXPECT_FALSE(policy::placement::place(t, {.size = 2, .bandwidth = samples})
                     .has_value());  // 4..7 unmeasured
}

}  // namespace
}  // namespace peergate::placement_test
