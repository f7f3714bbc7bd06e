// SPDX-License-Identifier: Apache-2.0
// Exact branch and bound over placements whose pairs all weigh at least a threshold
// (n <= 64 candidates, kept as bit sets).
//
// Symmetry breaking: the smallest undecided candidate either opens the next group or is
// left out (only while spare candidates remain); a group is completed by taking or
// skipping its smallest remaining usable partner. Every placement is then reached once,
// and in the lexicographic order of its sorted list of sorted groups, so keeping only
// strict improvements yields the smallest list among the optimal ones.
#pragma once

#include <atomic>
#include <cstdint>

#include "policy/placement_objective.hpp"

namespace peergate::policy::placement {

struct SearchResult {
    bool complete = false;  // the search ran to the end within the node budget
    bool found = false;     // `groups` holds a placement
    Groups groups;
    Score score;
    std::uint64_t nodes = 0;
};

// Whether whoever handed a search `stop` has set it (a search given none runs to its budget).
inline bool stop_requested(const std::atomic<bool>* stop) {
    return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// Any placement of G groups whose pairs all weigh >= threshold.
SearchResult find_packing(const Problem& problem, Weight threshold, std::uint64_t node_budget);

// The best placement by (2), (3), (4) and the tie-break among those whose pairs all weigh
// >= threshold. `incumbent` is a known such placement (found is then always true).
// `level_caps[i]`, when given, bounds how many disjoint groups of the whole problem can have
// every pair >= the i-th distinct weight above the threshold (ascending). The search gives
// up (complete false) as soon as `stop`, when given, is set.
SearchResult optimise_packing(const Problem& problem, Weight threshold, const Groups& incumbent,
                              std::uint64_t node_budget, const std::vector<int>& level_caps = {},
                              const std::atomic<bool>* stop = nullptr);

}  // namespace peergate::policy::placement
