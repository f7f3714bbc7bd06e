// SPDX-License-Identifier: Apache-2.0
// The group-by-group search's drivers (policy/placement/search_goals.hpp): a proof of the best
// score in any branching order, then the first placement with that score in list order, gives what
// one search in list order gives, past the sizes the brute-force enumerator reaches.
#include "placement_support.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/heuristic.hpp"
#include "policy/placement/search_goals.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace peergate {
namespace {

namespace pl = policy::placement;

constexpr std::uint64_t kEnough = 20'000'000;

struct Case {
    pl::Problem problem;
    pl::Groups start;
    policy::placement::Weight threshold = 0;
};

Case random_case(std::mt19937& rng, int n, int k) {
    const auto problem = pl::build_problem(placement_test::random_topology(rng, n), {.size = k});
    EXPECT_TRUE(problem.has_value());
    Case c{.problem = *problem};
    c.start = pl::heuristic_placement(c.problem, pl::first_component_bound(c.problem));
    c.threshold = pl::evaluate(c.problem, c.start).min_bottleneck;
    return c;
}

TEST(PlacementOptimise, ProofThenFirstInListOrderIsTheOneSearchInListOrder) {
    std::mt19937 rng(4701U);
    int compared = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const int n = std::uniform_int_distribution<int>(10, 16)(rng);
        const int k = std::uniform_int_distribution<int>(2, 5)(rng);
        const Case c = random_case(rng, n, k);
        const auto two = pl::optimise_packing(c.problem, c.threshold, c.start, kEnough);
        const auto one = pl::improve_packing(c.problem, c.threshold, c.start, kEnough);
        const std::string what = "trial " + std::to_string(trial) + " n " + std::to_string(n) +
                                 " K " + std::to_string(k);
        ASSERT_TRUE(two.complete && one.complete) << what;
        EXPECT_EQ(two.score, one.score) << what;
        EXPECT_EQ(two.groups, one.groups) << what;
        ++compared;
    }
    EXPECT_EQ(compared, 40);
}

// The proof alone settles the score; the smallest-list search then ends at its first find.
TEST(PlacementOptimise, TheProofGivesTheScoreAndTheSecondSearchOnlyItsSmallestList) {
    std::mt19937 rng(4702U);
    for (int trial = 0; trial < 20; ++trial) {
        const Case c = random_case(rng, 14, 3);
        const auto proof =
            pl::run_search(c.problem, c.threshold, pl::Goal::score, kEnough, {}, &c.start);
        ASSERT_TRUE(proof.complete);
        const auto smallest =
            pl::run_search(c.problem, c.threshold, pl::Goal::smallest, kEnough, {}, &proof.groups);
        ASSERT_TRUE(smallest.complete);
        EXPECT_EQ(smallest.score, proof.score) << "trial " << trial;
        EXPECT_EQ(pl::score_of(pl::evaluate(c.problem, smallest.groups)), proof.score)
            << "trial " << trial;
        const auto one = pl::improve_packing(c.problem, c.threshold, c.start, kEnough);
        EXPECT_EQ(smallest.groups, one.groups) << "trial " << trial;
    }
}

}  // namespace
}  // namespace peergate
