// SPDX-License-Identifier: Apache-2.0
// Exact branch and bound that fills all G groups at once: each step takes the undecided
// candidate with the fewest places left and tries it in every open group, in a new group,
// or (while spare candidates remain) nowhere. Every undecided candidate's share of the
// pair weights is bounded by its best group, so the bound tightens evenly as the groups
// fill, where the group-by-group search (search.hpp) can bound the groups it has
// not started only loosely. That search still runs first: on structured topologies with
// many equal optima it settles the tie-break faster.
#pragma once

#include "policy/placement/search_goals.hpp"

#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// The best placement by (2), (3), (4) and the tie-break among those whose pairs all weigh
// >= threshold; `incumbent` is such a placement. `level_caps` and `stop` as for
// optimise_packing.
SearchResult assign_packing(const Problem& problem,
                            Weight threshold,
                            const Groups& incumbent,
                            std::uint64_t node_budget,
                            const std::vector<int>& level_caps,
                            const std::atomic<bool>* stop = nullptr);

// Any placement of G groups whose pairs all weigh >= threshold (found false: none, when
// complete), branching on the candidate with the fewest places left.
SearchResult assign_feasible(const Problem& problem, Weight threshold, std::uint64_t node_budget);

}  // namespace peergate::policy::placement
