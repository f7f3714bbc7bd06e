// SPDX-License-Identifier: Apache-2.0
// Large moves for the exact solver's starting placement: two or three groups and the
// leftover candidates split again by the group-by-group search itself, within a small budget.
//
// Swaps move one GPU at a time and stop where no single swap helps. On PCIe trees the better
// placement often needs two groups cut anew (three GPUs of one switch trading places with
// three of another), which no swap on the way improves. The exact search proves optimality
// sooner from a better start (on one 32-GPU tree with groups of 6, 1.4M nodes instead of
// 12M), and a solve that runs out of budget answers with it.
#pragma once

#include "policy/placement/objective.hpp"

#include <algorithm>
#include <cstdint>

namespace peergate::policy::placement {

// What the re-splits may spend of a solve's node budget, before the exact search and again
// on its answer when it did not finish: a twelfth, and at most 100k nodes (30 to 60k settle
// a 32-GPU tree in groups of 6).
inline std::uint64_t regroup_share(std::uint64_t node_budget) {
    return std::min<std::uint64_t>(100'000, node_budget / 12);
}

// Re-splits each pair of `groups` (all pairs at or above `threshold`, which is the
// placement's weakest link) with the leftover, then triples where no pair helps, while the
// score improves; returns the search nodes spent (about `node_budget` at most). Pools of
// more than 24 candidates are left as they are. `groups` stays normalised; required GPUs
// stay together. Any n.
std::uint64_t regroup_pairs(const Problem& problem,
                            Weight threshold,
                            Groups& groups,
                            std::uint64_t node_budget);

}  // namespace peergate::policy::placement
