// SPDX-License-Identifier: Apache-2.0
// Twins: candidates with the same weight to every other candidate, the same NUMA class and
// the same requirement. Swapping two twins never changes a placement's score, which the
// searches use to skip placements that only swap them.
#pragma once

#include "policy/placement/problem.hpp"

#include <vector>

namespace peergate::policy::placement {

// Per candidate: its next smaller twin, or -1.
std::vector<int> previous_twins(const Problem& problem);

}  // namespace peergate::policy::placement
