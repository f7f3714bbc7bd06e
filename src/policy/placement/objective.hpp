// SPDX-License-Identifier: Apache-2.0
// The objective of issue 7 evaluated on groups, and the additive part the exact search
// optimises once the first component is fixed.
#pragma once

#include "policy/placement/problem.hpp"

#include <compare>
#include <vector>

namespace peergate::policy::placement {

struct GroupStats {
    Weight bottleneck = kUnlimited;  // min pair weight; kUnlimited for one GPU
    int low_a = -1;                  // positions of the first pair reaching it
    int low_b = -1;
    Weight weight_sum = 0;  // all pair weights
    int spans = 0;          // distinct NUMA classes
};

GroupStats group_stats(const Problem& problem, const std::vector<int>& group);

// The objective of a whole placement (groups of one sum to kUnlimited).
PlacementObjective evaluate(const Problem& problem, const Groups& groups);

// Components (2), (3) doubled and (4) negated, so that every one is "more is better", sums
// over groups and bounds may halve weights without fractions. Compared lexicographically.
struct Score {
    Weight sum_bottleneck = 0;
    Weight doubled_weight = 0;
    Weight negative_spans = 0;

    friend auto operator<=>(const Score&, const Score&) = default;

    friend Score operator+(const Score& a, const Score& b) {
        return {a.sum_bottleneck + b.sum_bottleneck,
                a.doubled_weight + b.doubled_weight,
                a.negative_spans + b.negative_spans};
    }

    friend Score operator-(const Score& a, const Score& b) {
        return {a.sum_bottleneck - b.sum_bottleneck,
                a.doubled_weight - b.doubled_weight,
                a.negative_spans - b.negative_spans};
    }
};

Score score_of(const GroupStats& stats);

// The answer's order: the better score, then the smaller sorted list of sorted groups
// (both normalised).
inline bool preferred(const Score& a,
                      const Groups& a_groups,
                      const Score& b,
                      const Groups& b_groups) {
    return a > b || (a == b && a_groups < b_groups);
}

Score score_of(const PlacementObjective& objective);

}  // namespace peergate::policy::placement
