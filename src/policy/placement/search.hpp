// SPDX-License-Identifier: Apache-2.0
// Exact branch and bound over placements whose pairs all weigh at least a threshold
// (n <= 64 candidates, kept as bit sets).
//
// Symmetry breaking: an undecided candidate either opens the next group or is left out
// (only while spare candidates remain); a group is completed by taking or skipping its
// smallest remaining usable partner. Every placement is then reached once. When that
// candidate is always the smallest, placements come in the lexicographic order of their
// sorted lists of sorted groups, so the first with the best score is the smallest list;
// proving the best score may branch on any candidate (the most constrained fails soonest).
#pragma once

#include "policy/placement/objective.hpp"

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

namespace peergate::policy::placement {

struct SearchResult {
    bool complete = false;  // the search ran to the end within the node budget
    bool found = false;     // `groups` holds a placement
    Groups groups;
    Score score;
    std::uint64_t nodes = 0;
    // From a search that did not finish, what it proves: no placement at the threshold
    // scores more (the best of what it found and of the bounds of the branches it did not
    // reach). nullopt where the search kept no such bound.
    std::optional<Score> upper;
};

// Whether whoever handed a search `stop` has set it (a search given none runs to its budget).
inline bool stop_requested(const std::atomic<bool>* stop) {
    return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// What a search is for. Only the last two need the groups in list order; the others may
// branch on any candidate (the most constrained) and treat twins as one.
enum class Goal {
    feasible,   // any placement: the first one found ends the search
    score,      // the best score: only strict improvements count
    smallest,   // the smallest list with the incumbent's score, proven best: the first found
    best_list,  // the best score, then the smallest list, in one search
};

// One search for `goal`, seeded with `incumbent` when there is one (the score and
// smallest goals need it). The drivers in search_goals.hpp combine them.
SearchResult run_search(const Problem& problem,
                        Weight threshold,
                        Goal goal,
                        std::uint64_t node_budget,
                        const std::vector<int>& level_caps,
                        const Groups* incumbent,
                        const std::atomic<bool>* stop = nullptr);

}  // namespace peergate::policy::placement
