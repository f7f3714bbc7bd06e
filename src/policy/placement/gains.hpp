// SPDX-License-Identifier: Apache-2.0
// What the undecided candidates can still add, for the all-groups search's bound, when not
// every one of them can take its best place: pure functions over per-candidate gains.
#pragma once

#include "policy/placement/objective.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <vector>

namespace peergate::policy::placement {

// The sum of the `count` largest of `gains` (reordered), or of all when there are fewer:
// with spare candidates only as many as there are places left are seated, and one left out
// adds nothing.
inline Weight largest_sum(std::vector<Weight>& gains, std::size_t count) {
    if (count >= gains.size()) {
        return std::accumulate(gains.begin(), gains.end(), Weight{0});
    }
    // Usually only a few are left out (n - G*K < K with the default G): take out the
    // smallest one at a time rather than select the largest.
    constexpr std::size_t kFewLeftOut = 4;
    if (gains.size() - count <= kFewLeftOut) {
        Weight sum = std::accumulate(gains.begin(), gains.end(), Weight{0});
        while (gains.size() > count) {
            const auto smallest = std::min_element(gains.begin(), gains.end());
            sum -= *smallest;
            *smallest = gains.back();
            gains.pop_back();
        }
        return sum;
    }
    std::nth_element(gains.begin(),
                     gains.begin() + static_cast<std::ptrdiff_t>(count),
                     gains.end(),
                     std::greater<>());
    gains.resize(count);
    return std::accumulate(gains.begin(), gains.end(), Weight{0});
}

// Two groups and no one left out: exactly `to_zero_wanted` of the undecided go to group 0
// and the rest to group 1, so the best split sends group 0 the ones that gain most by going
// there rather than to group 1 (`to_zero`, reordered, and `to_one`: each one's gain in
// either). Tighter than each taking its better group when most prefer the same one.
inline Weight best_split(std::vector<Weight>& to_zero,
                         const std::vector<Weight>& to_one,
                         std::size_t to_zero_wanted) {
    Weight sum = 0;
    for (std::size_t i = 0; i < to_zero.size(); ++i) {
        sum += to_one[i];
        to_zero[i] -= to_one[i];  // now: what going to group 0 adds over group 1
    }
    return sum + largest_sum(to_zero, to_zero_wanted);
}

}  // namespace peergate::policy::placement
