// SPDX-License-Identifier: Apache-2.0
// The exact solver for up to kExactLimit candidates: first the largest threshold at which
// G groups still fit (binary search over the distinct weights, each step a branch and
// bound feasibility search), which is the optimum of (1); then the best placement by (2),
// (3), (4) and the tie-break using only pairs at or above it, from a start made as good as
// a few percent of the budget allows (swaps, a NUMA-first start, groups re-split).
#pragma once

#include "policy/placement/objective.hpp"
#include "policy/placement/race.hpp"

#include <cstdint>
#include <optional>

namespace peergate::policy::placement {

inline constexpr int kExactLimit = 32;

struct Solved {
    Groups groups;
    bool exact = false;
    Weight upper_bound = kUnlimited;  // on (1)
    std::uint64_t nodes = 0;
    // Where (1) is proven and the rest is not: no placement with the optimal (1) scores
    // more by (2), (3) and (4) than this (SearchResult::upper).
    std::optional<Score> score_bound;
};

// `start` is a known placement (the heuristic's); `ceiling` an upper bound on (1).
// Stops where the node budget runs out and returns the best placement found, with
// exact false and the tightest proven bound on (1). The last stage's two searches run side
// by side, each with most of what is left of the budget (race.hpp), and an
// unfinished answer is re-split (regroup.hpp), so `nodes` may exceed the budget
// by up to four fifths of it.
Solved solve_exactly(const Problem& problem,
                     const Groups& start,
                     Weight ceiling,
                     std::uint64_t node_budget,
                     Searches searches = Searches::both);

}  // namespace peergate::policy::placement
