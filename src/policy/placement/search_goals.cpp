// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/search_goals.hpp"

#include <algorithm>

namespace peergate::policy::placement {

SearchResult find_packing(const Problem& problem, Weight threshold, std::uint64_t node_budget) {
    return run_search(problem, threshold, Goal::feasible, node_budget, {}, nullptr);
}

SearchResult improve_packing(const Problem& problem,
                             Weight threshold,
                             const Groups& incumbent,
                             std::uint64_t node_budget) {
    return run_search(problem, threshold, Goal::best_list, node_budget, {}, &incumbent);
}

// Proving the best score and finding the smallest list that has it are two searches. The
// proof may branch on the most constrained candidate, which settles (4) on a degraded
// NVSwitch box in 52 thousand nodes where list order took 36 million
// (docs/PERFORMANCE.md); the smallest list is then the first placement with that score
// in list order, found without a proof of its own.
SearchResult optimise_packing(const Problem& problem,
                              Weight threshold,
                              const Groups& incumbent,
                              std::uint64_t node_budget,
                              const std::vector<int>& level_caps,
                              const std::atomic<bool>* stop) {
    SearchResult best =
        run_search(problem, threshold, Goal::score, node_budget, level_caps, &incumbent, stop);
    if (!best.complete) {
        return best;
    }
    const std::uint64_t left = node_budget - std::min(node_budget, best.nodes);
    SearchResult smallest =
        run_search(problem, threshold, Goal::smallest, left, level_caps, &best.groups, stop);
    smallest.nodes += best.nodes;
    if (!smallest.complete) {  // the score is proven, the tie-break is not
        return SearchResult{.found = true,
                            .groups = best.groups,
                            .score = best.score,
                            .nodes = smallest.nodes,
                            .upper = best.score};
    }
    return smallest;
}

}  // namespace peergate::policy::placement
