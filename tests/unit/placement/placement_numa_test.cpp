// SPDX-License-Identifier: Apache-2.0
// Where only NUMA nodes decide: an NVSwitch box with a few links degraded, so the weakest
// link, (2) and (3) tie across many placements and (4) and the tie-break pick one. The
// joint NUMA bound (a group that mixes classes needs members of two) and the NUMA-first
// start are checked directly and, through both searches, against the brute force.
#include "placement_support.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/numa_start.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace peergate {
namespace {

using placement_test::expect_exact_search_matches_brute_force;
using placement_test::expect_place_matches_brute_force;
using placement_test::topology_from;
using Tokens = std::vector<std::vector<std::string>>;

// NV18 everywhere but a few pairs at NV12 or SYS; two or three NUMA nodes, sometimes one
// GPU whose node is not known.
model::Topology degraded_switch(std::mt19937& rng, int n) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const int nodes = std::uniform_int_distribution<int>(2, 3)(rng);
    Tokens tokens(static_cast<std::size_t>(n),
                  std::vector<std::string>(static_cast<std::size_t>(n), "X"));
    std::vector<std::optional<int>> numa;
    for (std::size_t a = 0; a < tokens.size(); ++a) {
        numa.emplace_back(unit(rng) < 0.05 ? std::nullopt
                                           : std::optional<int>(std::uniform_int_distribution<int>(
                                                 0, nodes - 1)(rng)));
        for (std::size_t b = a + 1; b < tokens.size(); ++b) {
            const double drawn = unit(rng);
            tokens[a][b] = tokens[b][a] = drawn < 0.8 ? "NV18" : drawn < 0.9 ? "NV12" : "SYS";
        }
    }
    return topology_from(tokens, numa);
}

// Random topologies of one shape, n = 4..10, every K: place() and the forced all-groups
// search against the brute force.
void expect_every_size_matches(model::Topology (*shape)(std::mt19937&, int),
                               unsigned seed,
                               int trials) {
    std::mt19937 rng(seed);
    for (int trial = 0; trial < trials; ++trial) {
        const int n = std::uniform_int_distribution<int>(4, 10)(rng);
        const auto t = shape(rng, n);
        for (int k = 2; k <= n / 2; ++k) {
            const std::string what = "trial " + std::to_string(trial) + " n " + std::to_string(n) +
                                     " K " + std::to_string(k);
            expect_place_matches_brute_force(t, {.size = k}, what);
            expect_exact_search_matches_brute_force(t, {.size = k}, "assign, " + what);
        }
    }
}

// Nine GPUs, all pairs usable but those among GPUs 6, 7 and 8 (NUMA node 1); GPUs 0-5 on
// node 0. Node 0 alone holds two groups of three, yet each group can take only one of 6, 7
// and 8, so all three groups mix nodes: 6 spans. Counting pure groups alone says 4; a
// mixed group takes at most two members of one node, so one mixed group cannot hold all
// three of node 1, and the joint count says 5.
TEST(PlacementNumaBound, MixedGroupsNeedMembersOfTwoNodes) {
    Tokens tokens(9, std::vector<std::string>(9, "X"));
    for (std::size_t a = 0; a < 9; ++a) {
        for (std::size_t b = a + 1; b < 9; ++b) {
            tokens[a][b] = tokens[b][a] = (a >= 6 && b >= 6) ? "SYS" : "NV4";
        }
    }
    const auto t = topology_from(tokens, {0, 0, 0, 0, 0, 0, 1, 1, 1});
    const auto problem = policy::placement::build_problem(t, {.size = 3});
    ASSERT_TRUE(problem.has_value());
    const auto nb = policy::placement::neighbours_at(*problem, 1004);
    const auto ceilings = policy::placement::clique_ceilings(*problem, 1004);
    policy::placement::BoundScratch scratch;
    const auto rest = policy::placement::rest_bound(*problem, nb, ceilings, {}, 0x1FF, 3, scratch);
    ASSERT_TRUE(rest.feasible);
    EXPECT_EQ(rest.groups.negative_spans, -5);
    EXPECT_EQ(rest.all_but_one.negative_spans, -2);  // two groups: both inside node 0
    const auto placed = policy::placement::place(t, {.size = 3});
    ASSERT_TRUE(placed.has_value());
    EXPECT_TRUE(placed->exact);
    EXPECT_EQ(placed->objective.numa_spans, 6);
}

// A node per two GPUs (a Grace CPU each, as in GB200 trays): a group of 8 spans at least 4
// nodes, four groups at least 16; pieces of K and a remainder when classes are large.
TEST(PlacementNumaBound, CountsTheNodesGroupsMustSpan) {
    using policy::placement::fewest_spans;
    std::vector<int> pieces;
    const std::vector<int> pairs(16, 2);
    EXPECT_EQ(fewest_spans(pairs, pairs, 8, 4, pieces), 16);
    EXPECT_EQ(fewest_spans(pairs, pairs, 8, 1, pieces), 4);
    EXPECT_EQ(fewest_spans({3, 3, 3, 3, 3, 3, 3, 3}, {3, 3, 3, 3, 3, 3, 3, 3}, 8, 3, pieces),
              9);                                                // 3+3+2 each
    EXPECT_EQ(fewest_spans({10, 6}, {10, 6}, 4, 4, pieces), 5);  // pieces 4, 4, 2 and 4, 2
    EXPECT_EQ(fewest_spans({16, 16}, {16, 16}, 8, 4, pieces), 4);
    EXPECT_EQ(fewest_spans({5}, {5}, 4, 0, pieces), 0);
    // One node's two GPUs cannot share a group (their link is below the threshold).
    std::vector<int> one_split(16, 2);
    one_split[3] = 1;
    // Parity: the split node's two halves sit in two groups, each of which then needs a
    // second odd piece, so a second node splits too; two degraded nodes pair up instead.
    EXPECT_EQ(fewest_spans(pairs, one_split, 8, 4, pieces), 18);
    std::vector<int> two_split = one_split;
    two_split[9] = 1;
    EXPECT_EQ(fewest_spans(pairs, two_split, 8, 4, pieces), 18);
    EXPECT_EQ(fewest_spans(pairs, one_split, 8, 3, pieces), 12);  // 8 spare: parity says nothing
    // A class that gives odd pieces at no cost (four GPUs, cliques of three: 3 + 1) pairs
    // with the split node's halves, so parity adds nothing: 2 + 2 + 13 pieces.
    std::vector<int> with_four = pairs;
    std::vector<int> cap_three = one_split;
    with_four[0] = 4;
    with_four[1] = 0;
    cap_three[0] = 3;
    EXPECT_EQ(fewest_spans(with_four, cap_three, 8, 4, pieces), 17);
    std::vector<int> offers = {1, 5, 2};
    EXPECT_EQ(policy::placement::classes_to_seat(offers, 6), 2);
    offers = {1, 1};
    EXPECT_EQ(policy::placement::classes_to_seat(offers, 3), 2);  // short: all of them
}

// Two sockets of 17 and 15 GPUs, groups of 8: a group that already holds two of the first
// socket and goes on with it leaves 9 and 15, which three groups seat with one mixed (one
// pure group each and 1 + 7): 1 + 4 = 5 spans. Splitting the group itself costs more
// (2 + 4), and so the least over the splits is 5, where the open group's bound (1) and the
// three others' bound on the whole pool (3) say 4 apart.
TEST(PlacementNumaBound, AGroupBeingFilledDecidesWhatTheOthersCanSeat) {
    policy::placement::SpanScratch scratch;
    policy::placement::SpansAfterOpen after{};
    policy::placement::spans_after_open_group({17, 15}, {2, 1}, {8, 8}, 8, 3, scratch, after);
    EXPECT_EQ(after[8], 4);  // 9 and 15 left
    EXPECT_EQ(after[2], 4);  // 15 and 9 left
    EXPECT_EQ(policy::placement::fewest_spans_around_open_group(after, {2, 0}, {15, 15}, 8), 5);
    // The same as bits: GPUs 0-16 on the first socket, 17-31 on the second; 0 and 1 taken.
    const std::uint64_t all = (std::uint64_t{1} << 32) - 1;
    const std::uint64_t first = (std::uint64_t{1} << 17) - 1;
    const std::vector<std::uint64_t> sockets = {first, all & ~first};
    EXPECT_EQ(policy::placement::fewest_spans_around_open_group(
                  after, sockets, 0x3, all & ~std::uint64_t{0x3}, 8),
              5);
    // Only the second socket's candidates left: the group must mix (2 spans), leaving 15
    // and 9, which need a mixed group too.
    EXPECT_EQ(policy::placement::fewest_spans_around_open_group(after, {2, 0}, {0, 15}, 8), 6);
    // The last group: nothing after it.
    policy::placement::spans_after_open_group({17, 15}, {2, 1}, {8, 8}, 8, 0, scratch, after);
    EXPECT_EQ(policy::placement::fewest_spans_around_open_group(after, {8, 0}, {0, 0}, 8), 1);
}

// Only pairwise usable members seat together: a clique of three in five, an empty set, a
// search that answers with its cap.
TEST(PlacementNumaBound, LargestCliqueCountsPairwiseUsableMembers) {
    std::vector<std::uint64_t> adjacency(5, 0);
    const auto join = [&](int a, int b) {
        adjacency[static_cast<std::size_t>(a)] |= std::uint64_t{1} << b;
        adjacency[static_cast<std::size_t>(b)] |= std::uint64_t{1} << a;
    };
    join(0, 1);
    join(1, 2);
    join(0, 2);
    join(3, 4);
    join(2, 3);
    EXPECT_EQ(policy::placement::largest_clique(adjacency, 0x1F, 8), 3);
    EXPECT_EQ(policy::placement::largest_clique(adjacency, 0x1F, 2), 2);
    EXPECT_EQ(policy::placement::largest_clique(adjacency, 0x18, 8), 2);
    EXPECT_EQ(policy::placement::largest_clique(adjacency, 0x09, 8), 1);  // 0 and 3 apart
    EXPECT_EQ(policy::placement::largest_clique(adjacency, 0, 8), 0);
}

// An NVSwitch domain with a node per two GPUs and a few links degraded: the weakest link,
// (2) and (3) tie, and only how the groups follow the node pairs decides.
model::Topology grace_pairs(std::mt19937& rng, int n) {
    Tokens tokens(static_cast<std::size_t>(n),
                  std::vector<std::string>(static_cast<std::size_t>(n), "X"));
    std::vector<std::optional<int>> numa;
    for (std::size_t a = 0; a < tokens.size(); ++a) {
        numa.emplace_back(static_cast<int>(a) / 2);
        for (std::size_t b = a + 1; b < tokens.size(); ++b) {
            tokens[a][b] = tokens[b][a] =
                std::uniform_real_distribution<double>(0, 1)(rng) < 0.1 ? "NV12" : "NV18";
        }
    }
    return topology_from(tokens, numa);
}

TEST(PlacementNuma, NodePerTwoGpusMatchesBruteForceThroughBothSearches) {
    expect_every_size_matches(grace_pairs, 9102U, 100);
}

// Sixteen GPUs on two nodes of eight, every pair NV18 but 0-4 and 1-5 (NV12): the greedy
// start may mix nodes; the NUMA-first start keeps each node's eight together.
TEST(PlacementNumaStart, KeepsEachNodesGroupTogether) {
    Tokens tokens(16, std::vector<std::string>(16, "X"));
    for (std::size_t a = 0; a < 16; ++a) {
        for (std::size_t b = a + 1; b < 16; ++b) {
            const bool degraded = (a == 0 && b == 4) || (a == 1 && b == 5);
            tokens[a][b] = tokens[b][a] = degraded ? "NV12" : "NV18";
        }
    }
    std::vector<std::optional<int>> numa;
    for (int a = 0; a < 16; ++a) {
        numa.emplace_back((a / 4) % 2);  // 0-3 and 8-11 on node 0
    }
    const auto problem = policy::placement::build_problem(topology_from(tokens, numa), {.size = 8});
    ASSERT_TRUE(problem.has_value());
    const auto start = policy::placement::numa_first_start(*problem, 1018, 10'000);
    ASSERT_TRUE(start.groups.has_value());
    const policy::placement::Groups expected = {{0, 1, 2, 3, 8, 9, 10, 11},
                                                {4, 5, 6, 7, 12, 13, 14, 15}};
    EXPECT_EQ(*start.groups, expected);
    EXPECT_GT(start.nodes, 0U);
}

TEST(PlacementNumaStart, OffersNothingWithRequiredGpusOrOneNode) {
    Tokens tokens(4, std::vector<std::string>(4, "X"));
    for (std::size_t a = 0; a < 4; ++a) {
        for (std::size_t b = a + 1; b < 4; ++b) {
            tokens[a][b] = tokens[b][a] = "NV4";
        }
    }
    const auto one_node =
        policy::placement::build_problem(topology_from(tokens, {0, 0, 0, 0}), {.size = 2});
    const auto required = policy::placement::build_problem(topology_from(tokens, {0, 0, 1, 1}),
                                                           {.size = 2, .required = {3}});
    ASSERT_TRUE(one_node.has_value() && required.has_value());
    EXPECT_FALSE(policy::placement::numa_first_start(*one_node, 1004, 10'000).groups.has_value());
    EXPECT_FALSE(policy::placement::numa_first_start(*required, 1004, 10'000).groups.has_value());
}

TEST(PlacementNuma, DegradedSwitchesMatchBruteForceThroughBothSearches) {
    expect_every_size_matches(degraded_switch, 9101U, 150);
}

// Every pair NV18 and NUMA nodes of a few sizes (mostly equal): where groups must take
// whole nodes of the largest size, the uniform solver answers; otherwise the search does.
model::Topology uniform_switch(std::mt19937& rng, int n) {
    Tokens tokens(static_cast<std::size_t>(n),
                  std::vector<std::string>(static_cast<std::size_t>(n), "X"));
    const int per_node = std::uniform_int_distribution<int>(1, 3)(rng);
    std::vector<std::optional<int>> numa;
    for (std::size_t a = 0; a < tokens.size(); ++a) {
        const bool odd_one = std::uniform_int_distribution<int>(0, 9)(rng) == 0;
        numa.emplace_back(odd_one ? 100 + static_cast<int>(a) : static_cast<int>(a) / per_node);
        for (std::size_t b = a + 1; b < tokens.size(); ++b) {
            tokens[a][b] = tokens[b][a] = "NV18";
        }
    }
    std::shuffle(numa.begin(), numa.end(), rng);
    return topology_from(tokens, numa);
}

TEST(PlacementUniform, WholeNodesMatchBruteForce) {
    expect_every_size_matches(uniform_switch, 9103U, 150);
}

// A GB200 NVL72 rack: NV18 everywhere, a NUMA node per two GPUs. Groups of 4, 8 and 16
// take whole node pairs in index order, directly.
TEST(PlacementUniform, Nvl72TakesWholeNodePairs) {
    Tokens tokens(72, std::vector<std::string>(72, "NV18"));
    std::vector<std::optional<int>> numa;
    for (std::size_t a = 0; a < 72; ++a) {
        tokens[a][a] = "X";
        numa.emplace_back(static_cast<int>(a) / 2);
    }
    const auto t = topology_from(tokens, numa);
    for (int k : {4, 8, 16}) {
        const auto placed = policy::placement::place(t, {.size = k});
        ASSERT_TRUE(placed.has_value());
        EXPECT_EQ(placed->method, policy::placement::PlacementMethod::uniform) << k;
        EXPECT_TRUE(placed->exact) << k;
        EXPECT_EQ(placed->objective.numa_spans, (72 / k) * (k / 2)) << k;
        EXPECT_EQ(placed->groups.back().gpus.back(), (72 / k) * k - 1)
            << k;  // the last GPUs are left out
    }
}

}  // namespace
}  // namespace peergate
