// SPDX-License-Identifier: Apache-2.0
// Which searches answer what: a feasible packing, the best one, or a better one within a
// budget too small to finish, each as runs of the branch and bound in search.hpp.
#pragma once

#include "policy/placement/search.hpp"

#include <atomic>
#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// Any placement of G groups whose pairs all weigh >= threshold.
SearchResult find_packing(const Problem& problem, Weight threshold, std::uint64_t node_budget);

// The best placement by (2), (3), (4) and the tie-break among those whose pairs all weigh
// >= threshold. `incumbent` is a known such placement (found is then always true).
// `level_caps[i]`, when given, bounds how many disjoint groups of the whole problem can have
// every pair >= the i-th distinct weight above the threshold (ascending). The search gives
// up (complete false) as soon as `stop`, when given, is set.
SearchResult optimise_packing(const Problem& problem,
                              Weight threshold,
                              const Groups& incumbent,
                              std::uint64_t node_budget,
                              const std::vector<int>& level_caps = {},
                              const std::atomic<bool>* stop = nullptr);

// The same in one search in list order, for a budget too small to finish: what it returns
// unfinished is at least as good as `incumbent`, and on small pools it gets further than
// a proof followed by a second search (the re-split's use, regroup.hpp).
SearchResult improve_packing(const Problem& problem,
                             Weight threshold,
                             const Groups& incumbent,
                             std::uint64_t node_budget);

}  // namespace peergate::policy::placement
