// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/bounds.hpp"

#include "policy/placement/numa_bounds.hpp"
#include "policy/placement/truss.hpp"
#include "util/cpu_clones.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace peergate::policy::placement {

namespace {

// The NUMA bound packs a class exactly up to this many groups' worth of members.
constexpr int kPackedClassGroups = 3;
// Class counts kept (count_class_groups) before the table starts again.
constexpr std::size_t kCountedLimit = std::size_t{1} << 16;

bool in(std::uint64_t pool, int v) {
    return ((pool >> v) & 1U) != 0;
}

// The (K-1)-th heaviest usable pair inside the pool (capped by the candidate's ceiling)
// and the sum of the K-1 heaviest; nullopt when it has fewer such partners.
[[gnu::always_inline]] inline std::optional<Partners> member_bound(const Problem& p,
                                                                   const Neighbours& nb,
                                                                   Weight ceiling,
                                                                   std::uint64_t pool,
                                                                   int v,
                                                                   std::uint64_t& steps) {
    if (ceiling == kNoGroup) {
        return std::nullopt;
    }
    Partners bound = heaviest_partners(p, nb, v, pool, p.k - 1, steps);
    if (!bound.enough) {
        return std::nullopt;
    }
    bound.kth = std::min(bound.kth, ceiling);
    return bound;
}

// Level by level: at most min(m, the level's cap, members reaching it / K) groups have a
// bottleneck at or above each level. `kth` is sorted heaviest first.
Weight layered_bottlenecks(const Problem& p,
                           Weight threshold,
                           const std::vector<Weight>& kth,
                           const LevelCaps& caps,
                           int m) {
    Weight sum = m * threshold;
    Weight below = threshold;
    for (std::size_t i = 0; i < caps.levels.size(); ++i) {
        const Weight level = caps.levels[i];
        const auto reaching =
            std::upper_bound(kth.begin(), kth.end(), level, std::greater<>()) - kth.begin();
        const int groups = std::min({m, caps.groups[i], static_cast<int>(reaching) / p.k});
        sum += (level - below) * groups;
        below = level;
    }
    return sum;
}

Score bound_for(const Problem& p,
                Weight threshold,
                const std::vector<Weight>& kth,
                const std::vector<Weight>& top,
                BoundScratch& scratch,
                const LevelCaps& caps,
                int m) {
    Score score;
    score.sum_bottleneck = layered_bottlenecks(p, threshold, kth, caps, m);
    score.doubled_weight = std::accumulate(top.begin(), top.begin() + m * p.k, Weight{0});
    const int spans =
        std::max(m + fewest_mixed(scratch.per_class, scratch.pure, p.k, m),
                 fewest_spans(scratch.per_class, scratch.largest, p.k, m, scratch.pieces));
    score.negative_spans = -static_cast<Weight>(spans);
    return score;
}

}  // namespace

LevelCaps caps_above(const Problem& p, Weight threshold, const std::vector<int>& counted) {
    LevelCaps caps;
    for (Weight level : distinct_weights(p)) {
        if (level > threshold) {
            const std::size_t i = caps.levels.size();
            caps.levels.push_back(level);
            caps.groups.push_back(i < counted.size() ? counted[i] : p.g);
        }
    }
    return caps;
}

namespace {

// Link labels give at most 23 distinct weights; measured bandwidths up to one per pair.
constexpr std::size_t kMostLevels = 32;

void add_level_masks(const Problem& p, Neighbours& nb) {
    if (p.n > 64) {
        return;
    }
    for (Weight level : distinct_weights(p)) {
        if (level >= nb.threshold) {
            nb.levels.push_back(level);
        }
    }
    if (nb.levels.size() > kMostLevels) {
        nb.levels.clear();
        return;
    }
    std::reverse(nb.levels.begin(), nb.levels.end());  // heaviest first
    const std::size_t levels = nb.levels.size();
    nb.level_masks.assign(static_cast<std::size_t>(p.n) * levels, 0);
    for (int v = 0; v < p.n; ++v) {
        for (int u : at(nb.by_weight, v)) {
            const auto level =
                std::find(nb.levels.begin(), nb.levels.end(), p.w(v, u)) - nb.levels.begin();
            nb.level_masks[static_cast<std::size_t>(v) * levels +
                           static_cast<std::size_t>(level)] |= std::uint64_t{1} << u;
        }
    }
}

}  // namespace

Neighbours neighbours_at(const Problem& p, Weight threshold) {
    Neighbours nb{.threshold = threshold};
    nb.by_weight.resize(static_cast<std::size_t>(p.n));
    nb.mask.assign(static_cast<std::size_t>(p.n), 0);
    for (int v = 0; v < p.n; ++v) {
        auto& list = at(nb.by_weight, v);
        for (int u = 0; u < p.n; ++u) {
            if (u != v && p.w(v, u) >= threshold) {
                list.push_back(u);
                if (u < 64) {
                    at(nb.mask, v) |= std::uint64_t{1} << u;
                }
            }
        }
        std::stable_sort(
            list.begin(), list.end(), [&](int a, int b) { return p.w(v, a) > p.w(v, b); });
    }
    add_level_masks(p, nb);
    return nb;
}

namespace {

// A group inside one NUMA class is a group of that class's members alone: count the ones
// their own pairs allow (packing.hpp), not only K-sized shares. A class of the
// undecided candidates changes only when one of its members is placed, so the searches ask
// about the same members again and again: the counts are kept per set.
void count_class_groups(const Problem& p, const Neighbours& nb, BoundScratch& scratch) {
    if (scratch.counted_pairs != nb.mask || scratch.counted_k != p.k ||
        scratch.counted.size() > kCountedLimit) {
        scratch.counted.clear();
        scratch.counted_pairs = nb.mask;
        scratch.counted_k = p.k;
    }
    scratch.pure.clear();
    scratch.largest.clear();
    for (std::size_t c = 0; c < scratch.class_members.size(); ++c) {
        const std::uint64_t members = scratch.class_members[c];
        auto [it, added] = scratch.counted.try_emplace(members);
        if (added) {
            it->second.largest = nb.mask.empty() ? p.k : largest_clique(nb.mask, members, p.k);
            it->second.pure = 0;
            if (scratch.per_class[c] >= p.k && !nb.mask.empty()) {
                // Pairs and large classes: the truss count alone, which costs far less.
                const bool small = p.k >= 3 && scratch.per_class[c] <= kPackedClassGroups * p.k;
                it->second.pure = small ? scratch.packer.most(nb.mask, members, p.k)
                                        : truss_groups(nb.mask, members, p.k, &scratch.steps);
            }
        }
        scratch.largest.push_back(it->second.largest);
        scratch.pure.push_back(it->second.pure);
    }
}

}  // namespace

PEERGATE_WITH_POPCNT RestBound rest_bound(const Problem& p,
                                          const Neighbours& nb,
                                          const std::vector<Weight>& ceilings,
                                          const LevelCaps& caps,
                                          std::uint64_t pool,
                                          int m,
                                          BoundScratch& scratch) {
    auto& kth = scratch.kth;
    auto& top = scratch.top;
    auto& per_class = scratch.per_class;
    kth.clear();
    top.clear();
    per_class.assign(static_cast<std::size_t>(p.numa_classes), 0);
    scratch.class_members.assign(static_cast<std::size_t>(p.numa_classes), 0);
    for (int v = 0; v < p.n; ++v) {
        if (!in(pool, v)) {
            continue;
        }
        if (const auto bound = member_bound(p, nb, at(ceilings, v), pool, v, scratch.steps)) {
            kth.push_back(bound->kth);
            top.push_back(bound->top);
            ++at(per_class, at(p.numa, v));
            at(scratch.class_members, at(p.numa, v)) |= std::uint64_t{1} << v;
        }
    }
    count_class_groups(p, nb, scratch);
    RestBound rest;
    if (static_cast<int>(kth.size()) < m * p.k) {
        return rest;
    }
    rest.feasible = true;
    std::sort(kth.begin(), kth.end(), std::greater<>());
    std::sort(top.begin(), top.end(), std::greater<>());
    rest.groups = bound_for(p, nb.threshold, kth, top, scratch, caps, m);
    rest.all_but_one = bound_for(p, nb.threshold, kth, top, scratch, caps, std::max(0, m - 1));
    return rest;
}

namespace {

// Members left after repeatedly peeling those with fewer than K-1 partners >= t.
std::vector<char> peeled_core(const Problem& p, Weight t) {
    std::vector<char> alive(static_cast<std::size_t>(p.n), 1);
    std::vector<int> degree(static_cast<std::size_t>(p.n), 0);
    for (int a = 0; a < p.n; ++a) {
        for (int b = 0; b < p.n; ++b) {
            at(degree, a) += (a != b && p.w(a, b) >= t) ? 1 : 0;
        }
    }
    std::vector<int> stack;
    for (int a = 0; a < p.n; ++a) {
        if (at(degree, a) < p.k - 1) {
            at(alive, a) = 0;
            stack.push_back(a);
        }
    }
    while (!stack.empty()) {
        const int a = stack.back();
        stack.pop_back();
        for (int b = 0; b < p.n; ++b) {
            if (b != a && at(alive, b) && p.w(a, b) >= t && --at(degree, b) < p.k - 1) {
                at(alive, b) = 0;
                stack.push_back(b);
            }
        }
    }
    return alive;
}

// How many disjoint groups of K the components of the core could hold at most.
int groups_in_core(const Problem& p, Weight t) {
    auto alive = peeled_core(p, t);
    int groups = 0;
    for (int start = 0; start < p.n; ++start) {
        if (!at(alive, start)) {
            continue;
        }
        int size = 0;
        std::vector<int> stack{start};
        at(alive, start) = 0;
        while (!stack.empty()) {
            const int a = stack.back();
            stack.pop_back();
            ++size;
            for (int b = 0; b < p.n; ++b) {
                if (at(alive, b) && p.w(a, b) >= t) {
                    at(alive, b) = 0;
                    stack.push_back(b);
                }
            }
        }
        groups += size / p.k;
    }
    return groups;
}

int groups_in_truss(const Problem& p, Weight t) {
    const std::uint64_t all = p.n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p.n) - 1;
    return truss_groups(adjacency_at(p, t), all, p.k);
}

Weight required_ceiling(const Problem& p) {
    Weight ceiling = kUnlimited;
    for (int a = 0; a < p.n; ++a) {
        for (int b = a + 1; b < p.n; ++b) {
            if (p.is_required(a) && p.is_required(b)) {
                ceiling = std::min(ceiling, p.w(a, b));
            }
        }
    }
    return ceiling;
}

}  // namespace

int disjoint_groups_bound(const Problem& p, Weight t) {
    return p.n <= 64 ? groups_in_truss(p, t) : groups_in_core(p, t);
}

Weight first_component_bound(const Problem& p) {
    if (p.k < 2) {
        return kUnlimited;
    }
    const auto weights = distinct_weights(p);
    const Weight ceiling = required_ceiling(p);
    // The lowest weight always passes (every pair qualifies); the count is monotone in t.
    std::size_t lo = 0;
    std::size_t hi = weights.size() - 1;
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (weights[mid] <= ceiling && disjoint_groups_bound(p, weights[mid]) >= p.g) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return weights[lo];
}

}  // namespace peergate::policy::placement
