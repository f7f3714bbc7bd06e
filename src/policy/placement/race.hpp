// SPDX-License-Identifier: Apache-2.0
// The last stage of the exact solver, (2), (3), (4) and the tie-break at a settled
// threshold, has two searches: the group-by-group one (search.hpp) settles
// structured topologies with many equal optima, the one that fills all groups at once
// (assign.hpp) balanced partitions. Which finishes first depends on the topology,
// in ways no cheap test foretells, so both run side by side, the group-by-group search
// with the whole budget, the other with three fifths of it (half with groups of up to 4: its
// nodes cost more; all_groups_share), and the first to finish stops the other. The
// group-by-group search first runs alone for kAloneNodes, which settles most problems
// before a thread is worth starting; its best placement then seeds both.
//
// Neither sees the other's placements, so the answer never depends on timing: an exact
// answer is unique (the tie-break orders every placement), and when neither finishes, each
// ran its whole share. Only the node count (the work both did) varies between runs.
#pragma once

#include "policy/placement/search_goals.hpp"

#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

inline constexpr std::uint64_t kAloneNodes = 5'000;

enum class Searches {
    both,             // side by side on two threads; in turn where only one CPU is seen
    in_turn,          // half the budget each, the group-by-group search first
    all_groups_only,  // the all-groups search alone (tests check it on its own)
};

// The all-groups search's part of a budget when the two run side by side.
std::uint64_t all_groups_share(const Problem& problem, std::uint64_t node_budget);

// The best placement by (2), (3), (4) and the tie-break among those whose pairs all weigh
// >= threshold; `incumbent` is such a placement, `level_caps` as for optimise_packing.
// Complete when either search finished; `nodes` counts both.
SearchResult race_searches(const Problem& problem,
                           Weight threshold,
                           const Groups& incumbent,
                           std::uint64_t node_budget,
                           const std::vector<int>& level_caps,
                           Searches searches = Searches::both);

}  // namespace peergate::policy::placement
