// SPDX-License-Identifier: Apache-2.0
// Polynomial placement for any n: greedy packing at the highest threshold where it
// succeeds (NVLink islands first, since they carry the heaviest pairs), then swaps.
#pragma once

#include "policy/placement/objective.hpp"

#include <cstdint>
#include <optional>

namespace peergate::policy::placement {

// G groups whose pairs all weigh >= threshold, built one at a time from the candidate
// with the fewest usable partners; nullopt when the greedy gets stuck.
std::optional<Groups> greedy_at(const Problem& problem, Weight threshold);

// Greedy at the best threshold a binary search finds below `ceiling`, then swaps.
Groups heuristic_placement(const Problem& problem, Weight ceiling);

}  // namespace peergate::policy::placement
