// SPDX-License-Identifier: Apache-2.0
// Every candidate pair the same weight (an NVSwitch box): (1), (2) and (3) are the same for
// every placement, so only NUMA spans and the tie-break decide.
#pragma once

#include <optional>

#include "policy/placement_objective.hpp"

namespace peergate::policy::placement {

// When the NUMA classes hold G whole groups (floor(class size / K) summed), the optimum
// spans one class per group, and the smallest list is built directly, in O(n): the
// smallest undecided candidate opens a group with the K-1 next members of its class, or is
// left out when fewer remain. nullopt otherwise (some group must mix classes), or when
// GPUs are required: the general solvers handle those.
std::optional<Groups> uniform_placement(const Problem& problem);

}  // namespace peergate::policy::placement
