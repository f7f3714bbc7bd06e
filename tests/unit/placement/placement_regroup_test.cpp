// SPDX-License-Identifier: Apache-2.0
// Re-splitting groups for the exact solver's start (placement_regroup): it cuts two groups
// anew where no single swap helps, never lowers the score or breaks a placement, and with
// two groups it is the exact search itself.
#include "placement_support.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/heuristic.hpp"
#include "policy/placement/local_search.hpp"
#include "policy/placement/regroup.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace peergate {
namespace {

using policy::placement::Groups;
using policy::placement::Problem;

// A PCIe tree: GPUs 2, 5, 6, 7 under one switch, 1 and 3 under another on the same NUMA
// node, 0 and 4 on the other node. From {0,2,4,5} {1,3,6,7} every swap lowers (2) or
// (3); the best placement moves 0 and 4 together.
model::Topology split_tree() {
    return placement_test::topology_from(
        {{"X", "SYS", "SYS", "SYS", "NODE", "SYS", "SYS", "SYS"},
         {"SYS", "X", "NODE", "PIX", "SYS", "NODE", "NODE", "NODE"},
         {"SYS", "NODE", "X", "NODE", "SYS", "PIX", "PIX", "PIX"},
         {"SYS", "PIX", "NODE", "X", "SYS", "NODE", "NODE", "NODE"},
         {"NODE", "SYS", "SYS", "SYS", "X", "SYS", "SYS", "SYS"},
         {"SYS", "NODE", "PIX", "NODE", "SYS", "X", "PIX", "PIX"},
         {"SYS", "NODE", "PIX", "NODE", "SYS", "PIX", "X", "PIX"},
         {"SYS", "NODE", "PIX", "NODE", "SYS", "PIX", "PIX", "X"}},
        {0, 1, 1, 1, 0, 1, 1, 1});
}

TEST(PlacementRegroup, CutsTwoGroupsAnewWhereNoSwapHelps) {
    const auto problem = policy::placement::build_problem(split_tree(), {.size = 4});
    ASSERT_TRUE(problem.has_value());
    const Groups start = {{0, 2, 4, 5}, {1, 3, 6, 7}};
    Groups swapped = start;
    policy::placement::improve_by_swaps(*problem, swapped, 100'000);
    policy::placement::normalise(swapped);
    ASSERT_EQ(swapped, start);  // the premise: swaps are stuck
    Groups regrouped = start;
    const auto nodes = policy::placement::regroup_pairs(*problem, 10, regrouped, 100'000);
    EXPECT_EQ(regrouped, (Groups{{0, 1, 3, 4}, {2, 5, 6, 7}}));
    EXPECT_GT(nodes, 0U);
    const auto found = policy::placement::evaluate(*problem, regrouped);
    EXPECT_EQ(found.sum_bottleneck, 10 + 50);  // was 10 + 20
}

// What the heuristic answers: the start the exact solver re-splits.
Groups heuristic_start(const Problem& p) {
    return policy::placement::heuristic_placement(p, policy::placement::first_component_bound(p));
}

// G groups of K among the request's candidates, disjoint, the required GPUs together, every
// pair at or above the threshold.
void expect_valid(const Problem& p,
                  const Groups& groups,
                  policy::placement::Weight threshold,
                  const std::string& what) {
    ASSERT_EQ(static_cast<int>(groups.size()), p.g) << what;
    std::vector<int> seen;
    int holding_required = 0;
    for (const auto& group : groups) {
        ASSERT_EQ(static_cast<int>(group.size()), p.k) << what;
        const auto required =
            std::count_if(group.begin(), group.end(), [&](int v) { return p.is_required(v); });
        EXPECT_TRUE(required == 0 || required == p.required_count) << what;
        holding_required += required > 0 ? 1 : 0;
        for (int v : group) {
            seen.push_back(v);
            for (int u : group) {
                EXPECT_TRUE(u == v || p.w(u, v) >= threshold) << what;
            }
        }
    }
    EXPECT_EQ(holding_required, p.required_count > 0 ? 1 : 0) << what;
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << what;
    EXPECT_TRUE(std::is_sorted(groups.begin(), groups.end())) << what;
}

TEST(PlacementRegroup, NeverLowersTheScoreAndKeepsAPlacement) {
    std::mt19937 rng(7301U);
    int improved = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const int n = std::uniform_int_distribution<int>(6, 14)(rng);
        const auto topology = placement_test::random_topology(rng, n);
        const auto request = placement_test::random_request(rng, n, 2, 4, 2);
        if (!request) {
            continue;
        }
        const auto problem = policy::placement::build_problem(topology, *request);
        ASSERT_TRUE(problem.has_value());
        Groups groups = heuristic_start(*problem);
        const auto before = policy::placement::evaluate(*problem, groups);
        policy::placement::regroup_pairs(*problem, before.min_bottleneck, groups, 20'000);
        const std::string what =
            "trial " + std::to_string(trial) + " " + placement_test::describe(*request);
        expect_valid(*problem, groups, before.min_bottleneck, what);
        const auto after = policy::placement::evaluate(*problem, groups);
        EXPECT_FALSE(policy::placement::better(before, after)) << what;
        improved += policy::placement::better(after, before) ? 1 : 0;
    }
    EXPECT_GT(improved, 0);  // the heuristic's swaps leave some to re-split
}

// With two groups, the pair is every candidate: the search runs to the end and reaches
// the brute force's objective whenever the start already has its weakest link.
TEST(PlacementRegroup, WithTwoGroupsMatchesTheBruteForce) {
    std::mt19937 rng(7302U);
    int compared = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const int n = std::uniform_int_distribution<int>(4, 10)(rng);
        const auto topology = placement_test::random_topology(rng, n);
        const int k = std::uniform_int_distribution<int>(2, n / 2)(rng);
        const auto problem = policy::placement::build_problem(topology, {.size = k, .count = 2});
        ASSERT_TRUE(problem.has_value());
        Groups groups = heuristic_start(*problem);
        const auto start = policy::placement::evaluate(*problem, groups);
        const auto brute = placement_test::brute_force(topology, k, 2, {}, {});
        ASSERT_TRUE(brute.has_value());
        if (start.min_bottleneck != brute->objective.min_bottleneck) {
            continue;
        }
        policy::placement::regroup_pairs(*problem, start.min_bottleneck, groups, 1'000'000);
        EXPECT_EQ(policy::placement::evaluate(*problem, groups), brute->objective)
            << "trial " << trial << " n " << n << " K " << k;
        ++compared;
    }
    EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace peergate
