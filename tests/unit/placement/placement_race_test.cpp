// SPDX-License-Identifier: Apache-2.0
// The exact solver's last stage (placement_race): both searches stop when asked, the
// answer of two unfinished searches is the better of the two on every run, and taking
// turns on one CPU still matches the brute-force enumerator.
#include "placement_support.hpp"
#include "policy/placement/assign.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/heuristic.hpp"
#include "policy/placement/race.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>

namespace peergate {
namespace {

using policy::placement::Searches;
using policy::placement::SearchResult;

// A 32-GPU random topology in groups of 8: far past what either search settles in the
// small budgets below.
struct Hard {
    policy::placement::Problem problem;
    policy::placement::Groups start;
    policy::placement::Weight threshold = 0;
};

Hard hard_problem() {
    std::mt19937 rng(4401U);
    const auto problem =
        policy::placement::build_problem(placement_test::random_topology(rng, 32), {.size = 8});
    EXPECT_TRUE(problem.has_value());
    Hard hard{.problem = *problem};
    hard.start = policy::placement::heuristic_placement(
        hard.problem, policy::placement::first_component_bound(hard.problem));
    hard.threshold = policy::placement::evaluate(hard.problem, hard.start).min_bottleneck;
    return hard;
}

TEST(PlacementRace, BothSearchesStopWhenAsked) {
    const Hard hard = hard_problem();
    const std::atomic<bool> stop{true};
    const SearchResult by_group = policy::placement::optimise_packing(
        hard.problem, hard.threshold, hard.start, 1'000'000, {}, &stop);
    const SearchResult all_groups = policy::placement::assign_packing(
        hard.problem, hard.threshold, hard.start, 1'000'000, {}, &stop);
    for (const SearchResult* result : {&by_group, &all_groups}) {
        EXPECT_FALSE(result->complete);
        EXPECT_TRUE(result->found);  // the incumbent stands
        EXPECT_LE(result->nodes, 1U);
    }
}

// Neither finishes within 20k nodes, so after the group-by-group search's first
// kAloneNodes alone (whose best seeds both), each runs its share of the rest and the
// answer is the better placement of the two, the same on every run, whichever thread ran
// faster.
TEST(PlacementRace, TwoUnfinishedSearchesGiveTheBetterPlacementOnEveryRun) {
    const Hard hard = hard_problem();
    constexpr std::uint64_t kBudget = 20'000;
    using policy::placement::kAloneNodes;
    const SearchResult alone =
        policy::placement::optimise_packing(hard.problem, hard.threshold, hard.start, kAloneNodes);
    ASSERT_FALSE(alone.complete);
    const std::uint64_t rest = kBudget - alone.nodes;
    const SearchResult by_group =
        policy::placement::optimise_packing(hard.problem, hard.threshold, alone.groups, rest);
    const SearchResult all_groups =
        policy::placement::assign_packing(hard.problem,
                                          hard.threshold,
                                          alone.groups,
                                          policy::placement::all_groups_share(hard.problem, rest),
                                          {});
    ASSERT_FALSE(by_group.complete || all_groups.complete);
    auto a = by_group.groups;
    auto b = all_groups.groups;
    policy::placement::normalise(a);
    policy::placement::normalise(b);
    const auto& expected = all_groups.score > by_group.score   ? b
                           : by_group.score > all_groups.score ? a
                                                               : std::min(a, b);
    for (int run = 0; run < 3; ++run) {
        SearchResult raced =
            policy::placement::race_searches(hard.problem, hard.threshold, hard.start, kBudget, {});
        policy::placement::normalise(raced.groups);
        EXPECT_FALSE(raced.complete);
        EXPECT_EQ(raced.groups, expected) << "run " << run;
        EXPECT_EQ(raced.nodes, alone.nodes + by_group.nodes + all_groups.nodes);
    }
}

TEST(PlacementRace, TakingTurnsKeepsTheBudget) {
    const Hard hard = hard_problem();
    const SearchResult in_turn = policy::placement::race_searches(
        hard.problem, hard.threshold, hard.start, 20'000, {}, Searches::in_turn);
    EXPECT_FALSE(in_turn.complete);
    EXPECT_LE(in_turn.nodes, 20'000U + 256U);
    EXPECT_FALSE(
        policy::placement::better(policy::placement::evaluate(hard.problem, hard.start),
                                  policy::placement::evaluate(hard.problem, in_turn.groups)));
}

TEST(PlacementRace, TakingTurnsMatchesBruteForceForEveryK) {
    std::mt19937 rng(4402U);
    for (int trial = 0; trial < 100; ++trial) {
        const int n = std::uniform_int_distribution<int>(4, 10)(rng);
        const auto t = placement_test::random_topology(rng, n);
        for (int k = 2; k <= n / 2; ++k) {
            placement_test::expect_exact_search_matches_brute_force(
                t,
                {.size = k},
                "trial " + std::to_string(trial) + " K " + std::to_string(k),
                Searches::in_turn);
        }
    }
}

}  // namespace
}  // namespace peergate
