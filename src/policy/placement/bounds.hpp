// SPDX-License-Identifier: Apache-2.0
// Admissible bounds for the placement search: no placement inside the pool beats them.
#pragma once

#include "policy/placement/cliques.hpp"
#include "policy/placement/numa_bounds.hpp"
#include "policy/placement/objective.hpp"
#include "policy/placement/packing.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace peergate::policy::placement {

// For each position, the others it may share a group with at `threshold` (weight >= it),
// heaviest first; `mask` holds the same as bits when n <= 64.
struct Neighbours {
    Weight threshold = 0;
    std::vector<std::vector<int>> by_weight;
    std::vector<std::uint64_t> mask;
    // When n <= 64 and the weights are link labels (at most 18 NVLink counts and 5 PCIe
    // kinds; measured bandwidths make far more): the weights >= the threshold, heaviest
    // first, and per candidate its partners at each of them as bits (candidate-major).
    std::vector<Weight> levels;
    std::vector<std::uint64_t> level_masks;
};

Neighbours neighbours_at(const Problem& problem, Weight threshold);

// What the heaviest `kth` usable partners of a candidate among a set add up to.
struct Partners {
    bool enough = false;      // at least `kth` partners
    Weight kth = kUnlimited;  // the kth heaviest pair (the last found when not enough)
    Weight top = 0;           // the sum of those found, up to `kth`
};

// The heaviest `kth` partners of v in `among`, a bit count per level (n <= 64, few levels).
inline Partners partners_by_level(
    const Neighbours& nb, int v, std::uint64_t among, int kth, std::uint64_t& steps) {
    Partners found{.enough = kth == 0};
    int missing = kth;
    const std::size_t levels = nb.levels.size();
    const std::uint64_t* masks = &nb.level_masks[static_cast<std::size_t>(v) * levels];
    const Weight* weights = nb.levels.data();
    std::size_t l = 0;
    for (; l < levels && missing > 0; ++l) {
        const int here = std::min(missing, std::popcount(masks[l] & among));
        if (here > 0) {
            found.kth = weights[l];
            found.top += here * weights[l];
            missing -= here;
        }
    }
    steps += l;  // once, not per level: the count would alias the masks
    found.enough = missing == 0;
    return found;
}

// v's usable partners among a set (n <= 64), heaviest first. Counted level by level where
// there are level masks (1.2-2.4x faster on the sweep's mixes than walking the partners);
// otherwise walked heaviest first. `steps` counts the levels or partners looked at, which
// the searches charge to their budgets.
inline Partners heaviest_partners(const Problem& p,
                                  const Neighbours& nb,
                                  int v,
                                  std::uint64_t among,
                                  int kth,
                                  std::uint64_t& steps) {
    if (!nb.levels.empty()) {
        return partners_by_level(nb, v, among, kth, steps);
    }
    Partners found{.enough = kth == 0};
    int taken = 0;
    for (int u : at(nb.by_weight, v)) {
        if (taken == kth) {
            break;
        }
        ++steps;
        if (((among >> u) & 1U) != 0) {
            found.kth = p.w(v, u);
            found.top += found.kth;
            found.enough = ++taken == kth;
        }
    }
    return found;
}

// Upper bounds on (2), (3) doubled and (4) negated for `m` and for `m - 1` more groups
// drawn from `pool`: a member's group bottleneck is at most its (K-1)-th heaviest usable
// pair in the pool and its share of the group's weight at most the sum of its K-1
// heaviest (and its clique ceiling); a group in one NUMA class needs K members of that class.
struct RestBound {
    bool feasible = false;        // enough members with K-1 usable partners for m groups
    Score groups;                 // m groups
    Score all_but_one;            // m - 1 groups
    SpansAfterOpen after_open{};  // with two classes, filled by the search that opens a group
};

// How many more disjoint groups may have every pair at or above each weight over the
// threshold (a whole-problem packing bound less the groups already closed there). With it,
// (2) is bounded level by level: sum b(g) = m*T + sum over levels L of (L - previous level)
// times the groups whose bottleneck reaches L.
struct LevelCaps {
    std::vector<Weight> levels;  // distinct weights above the threshold, ascending
    std::vector<int> groups;     // per level
};

// The caps above `threshold` from the first stage's counts (`counted[i]` for the i-th
// distinct weight above it); levels it did not count keep G.
LevelCaps caps_above(const Problem& problem, Weight threshold, const std::vector<int>& counted);

// Buffers rest_bound reuses, so that the search does not allocate at every node.
struct BoundScratch {
    std::vector<Weight> kth;
    std::vector<Weight> top;
    std::vector<int> per_class;  // usable members in each NUMA class
    std::vector<int> pure;       // the most groups each class holds alone
    std::vector<int> largest;    // per class: the most of its members pairwise usable (up to K)
    std::vector<int> pieces;     // fewest_spans's
    std::vector<std::uint64_t> class_members;

    // Per set of class members: its `largest` and `pure` counts, for these pairs and K.
    struct ClassCounts {
        int largest = 0;
        int pure = 0;
    };

    std::unordered_map<std::uint64_t, ClassCounts> counted;
    std::vector<std::uint64_t> counted_pairs;
    int counted_k = 0;
    GroupPacker packer;
    std::uint64_t steps = 0;  // partner-scan steps, which the search charges to its budget
};

RestBound rest_bound(const Problem& problem,
                     const Neighbours& neighbours,
                     const std::vector<Weight>& ceilings,
                     const LevelCaps& caps,
                     std::uint64_t pool,
                     int m,
                     BoundScratch& scratch);

// At most how many disjoint groups of K have every pair >= t (required GPUs ignored): the
// components left by the peeling described below, each holding floor(size / K).
int disjoint_groups_bound(const Problem& problem, Weight t);

// The largest weight T such that, after peeling every candidate with fewer than K-1
// partners of weight >= T (and, for n <= 64, every pair with fewer than K-2 common
// partners), the connected components still hold G disjoint groups of K (and the required
// GPUs are pairwise >= T). No placement has a larger (1). Any n.
Weight first_component_bound(const Problem& problem);

}  // namespace peergate::policy::placement
