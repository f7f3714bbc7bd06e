// SPDX-License-Identifier: Apache-2.0
// Local search over a placement: swap moves between groups and with the leftover, for the
// heuristic placement and for the exact search's incumbents.
#pragma once

#include "policy/placement/objective.hpp"

#include <cstdint>

namespace peergate::policy::placement {

// Swaps between groups, and between a group and the leftover, while the objective
// improves strictly; at most `evaluations` candidate moves are scored. Required GPUs stay.
void improve_by_swaps(const Problem& problem, Groups& groups, std::uint64_t evaluations);

}  // namespace peergate::policy::placement
