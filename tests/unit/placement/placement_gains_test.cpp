// SPDX-License-Identifier: Apache-2.0
// What the all-groups search's bound may count of the undecided candidates' gains: the
// largest that fit the places left, and the best split between two groups, each against
// an enumeration of every choice.
#include "policy/placement/gains.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace peergate {
namespace {

using policy::placement::best_split;
using policy::placement::largest_sum;
using policy::placement::Weight;

// The best sum of `count` of `gains` (or of all), by trying every subset.
Weight every_subset_best(const std::vector<Weight>& gains, std::size_t count) {
    Weight best = 0;
    bool found = false;
    for (unsigned chosen = 0; chosen < (1U << gains.size()); ++chosen) {
        if (static_cast<std::size_t>(__builtin_popcount(chosen)) != std::min(count, gains.size())) {
            continue;
        }
        Weight sum = 0;
        for (std::size_t i = 0; i < gains.size(); ++i) {
            sum += ((chosen >> i) & 1U) != 0 ? gains[i] : 0;
        }
        best = found ? std::max(best, sum) : sum;
        found = true;
    }
    return best;
}

TEST(PlacementGains, LargestSumCountsOnlyThePlacesLeft) {
    std::vector<Weight> gains = {5, 1, 3, 2};
    EXPECT_EQ(largest_sum(gains, 2), 8);
    gains = {5, 1, 3, 2};
    EXPECT_EQ(largest_sum(gains, 4), 11);
    gains = {5, 1, 3, 2};
    EXPECT_EQ(largest_sum(gains, 9), 11);
    gains = {5, 1, 3, 2};
    EXPECT_EQ(largest_sum(gains, 0), 0);
}

// Few left out (taken out one at a time) and many (selected): the same as every subset,
// negative gains included.
TEST(PlacementGains, LargestSumMatchesEverySubset) {
    std::mt19937 rng(5101U);
    for (int trial = 0; trial < 400; ++trial) {
        const auto size = static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 12)(rng));
        std::vector<Weight> gains;
        for (std::size_t i = 0; i < size; ++i) {
            gains.push_back(std::uniform_int_distribution<Weight>(-50, 2000)(rng));
        }
        const auto count = static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 13)(rng));
        const Weight expected = every_subset_best(gains, count);
        EXPECT_EQ(largest_sum(gains, count), expected) << "trial " << trial;
    }
}

// Every candidate goes to group 0 or group 1, exactly `wanted` to group 0.
TEST(PlacementGains, BestSplitMatchesEveryAssignment) {
    std::mt19937 rng(5102U);
    for (int trial = 0; trial < 400; ++trial) {
        const auto size = static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 10)(rng));
        std::vector<Weight> to_zero;
        std::vector<Weight> to_one;
        for (std::size_t i = 0; i < size; ++i) {
            to_zero.push_back(std::uniform_int_distribution<Weight>(0, 500)(rng));
            to_one.push_back(std::uniform_int_distribution<Weight>(0, 500)(rng));
        }
        const int most = static_cast<int>(size);
        const auto wanted =
            static_cast<std::size_t>(std::uniform_int_distribution<int>(0, most)(rng));
        Weight expected = 0;
        bool found = false;
        for (unsigned chosen = 0; chosen < (1U << size); ++chosen) {
            if (static_cast<std::size_t>(__builtin_popcount(chosen)) != wanted) {
                continue;
            }
            Weight sum = 0;
            for (std::size_t i = 0; i < size; ++i) {
                sum += ((chosen >> i) & 1U) != 0 ? to_zero[i] : to_one[i];
            }
            expected = found ? std::max(expected, sum) : sum;
            found = true;
        }
        EXPECT_EQ(best_split(to_zero, to_one, wanted), expected) << "trial " << trial;
    }
}

}  // namespace
}  // namespace peergate
