// SPDX-License-Identifier: Apache-2.0
// The exact solver for up to kExactLimit candidates: first the largest threshold at which
// G groups still fit (binary search over the distinct weights, each step a branch and
// bound feasibility search), which is the optimum of (1); then the best placement by (2),
// (3), (4) and the tie-break using only pairs at or above it.
#pragma once

#include <cstdint>

#include "policy/placement_objective.hpp"

namespace peergate::policy::placement {

inline constexpr int kExactLimit = 32;

struct Solved {
    Groups groups;
    bool exact = false;
    Weight upper_bound = kUnlimited;  // on (1)
    std::uint64_t nodes = 0;
};

// The group-by-group search (placement_search.hpp) settles structured topologies, with many
// equal optima, in a few hundred nodes; past this many the search that fills all groups at
// once (placement_assign.hpp) takes over with the rest of the budget.
inline constexpr std::uint64_t kGroupSearchNodes = 50'000;

// `start` is a known placement (the heuristic's); `ceiling` an upper bound on (1).
// Stops where the node budget runs out and returns the best placement found, with
// exact false and the tightest proven bound on (1).
Solved solve_exactly(const Problem& problem, const Groups& start, Weight ceiling, std::uint64_t node_budget,
                     std::uint64_t group_search_nodes = kGroupSearchNodes);

}  // namespace peergate::policy::placement
