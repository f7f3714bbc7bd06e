// SPDX-License-Identifier: Apache-2.0
// Groups of K whose pairs all reach a level (cliques of the graph of such pairs): the
// searches bound each candidate's bottleneck by the highest level at which it lies in one.
#pragma once

#include "policy/placement/problem.hpp"

#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// Marks a candidate that lies in no group of K whose pairs all reach the threshold.
inline constexpr Weight kNoGroup = -1;

// For each candidate (n <= 64), the largest weight L >= threshold such that it lies in a
// group of K whose pairs all weigh >= L: a bound on the bottleneck of any group holding it.
// kNoGroup when there is none. Clique searches that exceed their effort keep the level
// they were trying, which can only loosen the bound.
std::vector<Weight> clique_ceilings(const Problem& problem, Weight threshold);

// The pairs at or above `level` as bit rows (n <= 64).
std::vector<std::uint64_t> adjacency_at(const Problem& problem, Weight level);

// The pairs at each weight >= a threshold, as bit sets (n <= 64), heaviest level first.
struct LevelAdjacency {
    std::vector<Weight> levels;
    std::vector<std::vector<std::uint64_t>> adjacency;
};

LevelAdjacency level_adjacency(const Problem& problem, Weight threshold);

// clique_ceilings for groups drawn from `pool` only (kNoGroup outside it). `above`, when
// given, holds ceilings of a larger pool: a candidate's ceiling here cannot exceed them, so
// its search starts at that level. `steps`, when given, gets the clique search steps added
// (a search charges them to its budget).
std::vector<Weight> clique_ceilings(const Problem& problem,
                                    const LevelAdjacency& levels,
                                    std::uint64_t pool,
                                    const std::vector<Weight>* above = nullptr,
                                    std::uint64_t* steps = nullptr);

}  // namespace peergate::policy::placement
