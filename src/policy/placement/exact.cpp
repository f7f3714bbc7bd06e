// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/exact.hpp"

#include "policy/placement/assign.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/heuristic.hpp"
#include "policy/placement/level_start.hpp"
#include "policy/placement/local_search.hpp"
#include "policy/placement/numa_start.hpp"
#include "policy/placement/regroup.hpp"
#include "policy/placement/search_goals.hpp"

#include <algorithm>

namespace peergate::policy::placement {

namespace {

constexpr std::uint64_t kIncumbentSwaps = 200'000;

std::size_t index_of(const std::vector<Weight>& weights, Weight value) {
    // The largest listed weight <= value: thresholds between two weights act as the lower.
    const auto it = std::upper_bound(weights.begin(), weights.end(), value);
    return it == weights.begin() ? 0 : static_cast<std::size_t>(it - weights.begin()) - 1;
}

// Feasibility probes: the group-by-group search settles sparse levels in a few nodes; the
// search that fills all groups at once proves dense ones infeasible far sooner.
constexpr std::uint64_t kGroupProbeNodes = 5'000;

SearchResult fits(const Problem& problem, Weight threshold, std::uint64_t budget) {
    SearchResult first = find_packing(problem, threshold, std::min(budget, kGroupProbeNodes));
    if (first.complete) {
        return first;
    }
    SearchResult second =
        assign_feasible(problem, threshold, budget > first.nodes ? budget - first.nodes : 0);
    second.nodes += first.nodes;
    return second;
}

// The level caps only tighten the bounds of the last stage, so they get a share of the
// budget; levels left unsettled keep G, which is still a valid cap.
constexpr std::uint64_t kCapsShare = 4;

struct Ladder {
    std::size_t lo = 0;  // a placement is known at weights[lo]
    std::size_t hi = 0;  // nothing above weights[hi] is possible
    Groups at_lo;
    bool complete = true;
};

// Binary search for the largest threshold at which G groups fit.
void climb(const Problem& problem,
           const std::vector<Weight>& weights,
           Ladder& ladder,
           Solved& solved,
           std::uint64_t budget) {
    while (ladder.lo < ladder.hi) {
        const std::size_t mid = (ladder.lo + ladder.hi + 1) / 2;
        const std::uint64_t left = budget > solved.nodes ? budget - solved.nodes : 0;
        const SearchResult probe = fits(problem, weights[mid], left);
        solved.nodes += probe.nodes;
        if (!probe.complete) {
            ladder.complete = false;
            return;
        }
        if (probe.found) {
            ladder.lo = mid;
            ladder.at_lo = probe.groups;
        } else {
            ladder.hi = mid - 1;
        }
    }
}

// For each weight above weights[lo], ascending: the most disjoint groups whose pairs all
// reach it (required GPUs ignored: any group may be the one reaching it). Found from the
// top level down, where the graphs are sparse; levels not settled within the budget keep G.
// `witnesses` gets, highest level first, a packing of that many groups at each level where
// the count grew.
std::vector<int> level_caps(const Problem& problem,
                            const std::vector<Weight>& weights,
                            std::size_t lo,
                            Solved& solved,
                            std::uint64_t budget,
                            std::vector<LevelWitness>& witnesses) {
    std::vector<int> caps(weights.size() - lo - 1, problem.g);
    Problem unconstrained = problem;
    std::fill(unconstrained.required.begin(), unconstrained.required.end(), 0);
    unconstrained.required_count = 0;
    int known = 0;  // groups that fit at the level above
    for (std::size_t i = caps.size(); i-- > 0;) {
        const int most = disjoint_groups_bound(unconstrained, weights[lo + 1 + i]);
        for (unconstrained.g = known + 1; unconstrained.g <= std::min(problem.g, most);
             ++unconstrained.g) {
            const std::uint64_t left = budget > solved.nodes ? budget - solved.nodes : 0;
            const SearchResult probe = fits(unconstrained, weights[lo + 1 + i], left);
            solved.nodes += probe.nodes;
            if (!probe.complete) {
                return caps;
            }
            if (!probe.found) {
                break;
            }
            known = unconstrained.g;
            if (witnesses.empty() || witnesses.back().level != weights[lo + 1 + i]) {
                witnesses.push_back({.level = weights[lo + 1 + i]});
            }
            witnesses.back().groups = probe.groups;
        }
        caps[i] = known;
    }
    return caps;
}

// Where NUMA nodes decide, a start that keeps each class's groups apart prunes far more.
constexpr std::uint64_t kNumaStartNodes = 20'000;

// A start that fills each level's groups first (level_start.hpp).
constexpr std::uint64_t kLevelStartNodes = 50'000;

// The better of two placements at the threshold (then the smaller list) becomes the
// incumbent; `found` is improved by swaps first.
void adopt_if_better(const Problem& problem, Groups found, Groups& incumbent) {
    improve_by_swaps(problem, found, kIncumbentSwaps);
    normalise(found);
    const PlacementObjective objective = evaluate(problem, found);
    const PlacementObjective known = evaluate(problem, incumbent);
    if (better(objective, known) || (objective == known && found < incumbent)) {
        incumbent = std::move(found);
    }
}

void adopt_level_start(const Problem& problem,
                       Weight threshold,
                       const std::vector<LevelWitness>& witnesses,
                       Groups& incumbent,
                       Solved& solved,
                       std::uint64_t budget) {
    const std::uint64_t left = budget > solved.nodes ? budget - solved.nodes : 0;
    LevelStart start = level_start(problem, threshold, witnesses, std::min(left, kLevelStartNodes));
    solved.nodes += start.nodes;
    if (start.groups) {
        adopt_if_better(problem, std::move(*start.groups), incumbent);
    }
}

void adopt_numa_start(const Problem& problem,
                      Weight threshold,
                      Groups& incumbent,
                      Solved& solved,
                      std::uint64_t budget) {
    const std::uint64_t left = budget > solved.nodes ? budget - solved.nodes : 0;
    NumaStart start = numa_first_start(problem, threshold, std::min(left, kNumaStartNodes));
    solved.nodes += start.nodes;
    if (start.groups) {
        adopt_if_better(problem, std::move(*start.groups), incumbent);
    }
}

}  // namespace

Solved solve_exactly(const Problem& problem,
                     const Groups& start,
                     Weight ceiling,
                     std::uint64_t node_budget,
                     Searches searches) {
    const auto weights = distinct_weights(problem);
    Solved solved;
    Ladder ladder{.lo = index_of(weights, evaluate(problem, start).min_bottleneck),
                  .hi = index_of(weights, ceiling),
                  .at_lo = start};
    climb(problem, weights, ladder, solved, node_budget);
    solved.upper_bound = weights[ladder.hi];
    std::vector<LevelWitness> witnesses;
    const auto caps =
        level_caps(problem,
                   weights,
                   ladder.lo,
                   solved,
                   solved.nodes + (node_budget - std::min(node_budget, solved.nodes)) / kCapsShare,
                   witnesses);
    // Swaps never lower the weakest link, so the packing stays at the threshold; a better
    // incumbent prunes more.
    improve_by_swaps(problem, ladder.at_lo, kIncumbentSwaps);
    normalise(ladder.at_lo);
    adopt_level_start(problem, weights[ladder.lo], witnesses, ladder.at_lo, solved, node_budget);
    adopt_numa_start(problem, weights[ladder.lo], ladder.at_lo, solved, node_budget);
    solved.nodes +=
        regroup_pairs(problem, weights[ladder.lo], ladder.at_lo, regroup_share(node_budget));
    const std::uint64_t left = node_budget > solved.nodes ? node_budget - solved.nodes : 0;
    const SearchResult best =
        race_searches(problem, weights[ladder.lo], ladder.at_lo, left, caps, searches);
    solved.nodes += best.nodes;
    solved.groups = best.groups;
    if (!best.complete) {
        // The searches' best still fixes its first groups early: re-splitting mends some,
        // with half the share, since this comes on top of a whole budget's time.
        solved.nodes += regroup_pairs(
            problem, weights[ladder.lo], solved.groups, regroup_share(node_budget) / 2);
    }
    normalise(solved.groups);
    solved.exact = ladder.complete && best.complete;
    if (solved.exact) {
        solved.upper_bound = weights[ladder.lo];
    }
    if (ladder.complete && !best.complete && best.upper) {
        solved.score_bound = std::max(*best.upper, score_of(evaluate(problem, solved.groups)));
    }
    return solved;
}

}  // namespace peergate::policy::placement
