// SPDX-License-Identifier: Apache-2.0
// Admissible bounds for the placement search: no placement inside the pool beats them.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/placement_objective.hpp"

namespace peergate::policy::placement {

// For each position, the others it may share a group with at `threshold` (weight >= it),
// heaviest first; `mask` holds the same as bits when n <= 64.
struct Neighbours {
    Weight threshold = 0;
    std::vector<std::vector<int>> by_weight;
    std::vector<std::uint64_t> mask;
};

Neighbours neighbours_at(const Problem& problem, Weight threshold);

// Upper bounds on (2), (3) doubled and (4) negated for `m` and for `m - 1` more groups
// drawn from `pool`: a member's group bottleneck is at most its (K-1)-th heaviest usable
// pair in the pool and its share of the group's weight at most the sum of its K-1
// heaviest; a group in one NUMA class needs K members of that class.
struct RestBound {
    bool feasible = false;  // enough members with K-1 usable partners for m groups
    Score groups;           // m groups
    Score all_but_one;      // m - 1 groups
};

RestBound rest_bound(const Problem& problem, const Neighbours& neighbours, std::uint64_t pool, int m);

// The largest weight T such that, after peeling every candidate with fewer than K-1
// partners of weight >= T, the connected components still hold G disjoint groups of K
// (and the required GPUs are pairwise >= T). No placement has a larger (1). Any n.
Weight first_component_bound(const Problem& problem);

}  // namespace peergate::policy::placement
