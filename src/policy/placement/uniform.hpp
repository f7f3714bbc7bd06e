// SPDX-License-Identifier: Apache-2.0
// Every candidate pair the same weight (an NVSwitch box): (1), (2) and (3) are the same for
// every placement, so only NUMA spans and the tie-break decide.
#pragma once

#include "policy/placement/objective.hpp"

#include <optional>

namespace peergate::policy::placement {

// Solved directly, in O(n) (plus a sort per group), in two cases: the NUMA classes hold G
// groups of their own (floor(class size / K) summed), so every group spans one class; or
// the largest classes, of size S dividing K, number at least G*K/S, so every group is K/S
// whole classes (a GB200 NVL72 rack: a NUMA node per two GPUs). Either way the smallest
// list is built in index order. nullopt otherwise (some group must cut a class), or when
// GPUs are required: the general solvers handle those.
std::optional<Groups> uniform_placement(const Problem& problem);

}  // namespace peergate::policy::placement
