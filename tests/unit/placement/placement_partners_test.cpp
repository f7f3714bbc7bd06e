// SPDX-License-Identifier: Apache-2.0
// A candidate's heaviest partners among a set, counted a level at a time (where the
// weights are link labels) and by walking its partners heaviest first (where measured
// bandwidths make too many levels): both give the same answer on the same problem. And the
// clique ceilings built on them, against every group of K.
#include "placement_support.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/partners.hpp"
#include "policy/placement/problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>

namespace peergate {
namespace {

namespace pl = policy::placement;

// The same neighbours without their level masks, so that partners are walked.
pl::Neighbours walked(pl::Neighbours nb) {
    nb.levels.clear();
    nb.level_masks.clear();
    return nb;
}

TEST(PlacementPartners, LevelCountsMatchTheWalkOnRandomLabels) {
    std::mt19937 rng(777U);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = std::uniform_int_distribution<int>(2, 24)(rng);
        const auto problem =
            pl::build_problem(placement_test::random_topology(rng, n), {.size = 2});
        ASSERT_TRUE(problem.has_value());
        const auto weights = pl::distinct_weights(*problem);
        const auto threshold =
            weights[std::uniform_int_distribution<std::size_t>(0, weights.size() - 1)(rng)];
        const auto by_level = pl::neighbours_at(*problem, threshold);
        ASSERT_FALSE(by_level.levels.empty()) << "link labels are few enough to count by level";
        const auto by_walk = walked(by_level);
        for (int v = 0; v < n; ++v) {
            const std::uint64_t among =
                std::uniform_int_distribution<std::uint64_t>(0, (std::uint64_t{1} << n) - 1)(rng);
            const int kth = std::uniform_int_distribution<int>(0, n)(rng);
            std::uint64_t steps = 0;
            const auto a = pl::heaviest_partners(*problem, by_level, v, among, kth, steps);
            const auto b = pl::heaviest_partners(*problem, by_walk, v, among, kth, steps);
            EXPECT_EQ(a.enough, b.enough) << "trial " << trial << " v " << v << " kth " << kth;
            EXPECT_EQ(a.kth, b.kth) << "trial " << trial << " v " << v << " kth " << kth;
            EXPECT_EQ(a.top, b.top) << "trial " << trial << " v " << v << " kth " << kth;
        }
    }
}

// Measured bandwidths: a weight per pair, more levels than are worth a mask each.
TEST(PlacementPartners, ManyDistinctWeightsAreWalked) {
    pl::Problem problem{.n = 12, .k = 3, .g = 4};
    problem.weight.assign(144, 0);
    for (int a = 0; a < 12; ++a) {
        for (int b = a + 1; b < 12; ++b) {
            problem.weight[static_cast<std::size_t>(a * 12 + b)] =
                problem.weight[static_cast<std::size_t>(b * 12 + a)] = 100 + a * 12 + b;
        }
    }
    const auto nb = pl::neighbours_at(problem, 0);
    EXPECT_TRUE(nb.levels.empty());
    std::uint64_t steps = 0;
    const auto found = pl::heaviest_partners(problem, nb, 0, 0xFFE, 2, steps);
    EXPECT_TRUE(found.enough);
    EXPECT_EQ(found.kth, 100 + 10);  // 0's two heaviest: 11 (111) and 10 (110)
    EXPECT_EQ(found.top, 111 + 110);
    EXPECT_EQ(pl::PartnerCounter(problem, nb).heaviest(0), 111);
}

// The largest L such that v lies in a group of K whose pairs all weigh >= L (kNoGroup when
// none reaches the threshold), by trying every group of K.
std::vector<policy::placement::Weight> brute_ceilings(const pl::Problem& p,
                                                      policy::placement::Weight threshold) {
    std::vector<policy::placement::Weight> out(static_cast<std::size_t>(p.n), pl::kNoGroup);
    for (std::uint32_t set = 0; set < (1U << p.n); ++set) {
        if (std::popcount(set) != p.k) {
            continue;
        }
        policy::placement::Weight weakest = policy::placement::kUnlimited;
        for (int a = 0; a < p.n; ++a) {
            for (int b = a + 1; b < p.n; ++b) {
                if (((set >> a) & 1U) != 0 && ((set >> b) & 1U) != 0) {
                    weakest = std::min(weakest, p.w(a, b));
                }
            }
        }
        for (int v = 0; v < p.n && weakest >= threshold; ++v) {
            if (((set >> v) & 1U) != 0) {
                out[static_cast<std::size_t>(v)] =
                    std::max(out[static_cast<std::size_t>(v)], weakest);
            }
        }
    }
    return out;
}

// Small enough that no clique search runs out of effort, so the ceilings are exact; groups
// of 4 and more are first bounded by colouring, which must never rule out a real one.
TEST(PlacementPartners, CliqueCeilingsMatchEveryGroup) {
    std::mt19937 rng(31337U);
    for (int trial = 0; trial < 150; ++trial) {
        const int n = std::uniform_int_distribution<int>(4, 12)(rng);
        const int k = std::uniform_int_distribution<int>(2, std::min(n, 7))(rng);
        const auto problem =
            pl::build_problem(placement_test::random_topology(rng, n), {.size = k});
        ASSERT_TRUE(problem.has_value());
        const auto weights = pl::distinct_weights(*problem);
        const auto threshold =
            weights[std::uniform_int_distribution<std::size_t>(0, weights.size() - 1)(rng)];
        EXPECT_EQ(pl::clique_ceilings(*problem, threshold), brute_ceilings(*problem, threshold))
            << "trial " << trial << " n " << n << " K " << k;
    }
}

}  // namespace
}  // namespace peergate
