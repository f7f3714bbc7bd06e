// SPDX-License-Identifier: Apache-2.0
#include "policy/placement_heuristic.hpp"

#include <algorithm>
#include <tuple>

namespace peergate::policy::placement {

namespace {

constexpr int kSeedsPerGroup = 4;
constexpr std::size_t kCrowdLimit = 96;  // beyond this, skip the quadratic tie-breaker
constexpr std::uint64_t kSwapEvaluations = 3'000'000;

struct Packer {
    const Problem& p;
    Weight t;
    std::vector<char> free;

    bool usable(int a, int b) const { return p.w(a, b) >= t; }

    int free_degree(int v) const {
        int degree = 0;
        for (int u = 0; u < p.n; ++u) {
            degree += (u != v && at(free, u) && usable(u, v)) ? 1 : 0;
        }
        return degree;
    }

    std::vector<int> partners(const std::vector<int>& group) const {
        std::vector<int> cand;
        for (int v = 0; v < p.n; ++v) {
            const bool fits = std::all_of(group.begin(), group.end(), [&](int s) { return s != v && usable(s, v); });
            if (at(free, v) && fits) {
                cand.push_back(v);
            }
        }
        return cand;
    }

    // Ranks a partner: the weakest pair it adds, how many other partners it keeps,
    // whether it shares the seed's NUMA class, the weight it adds, then the smaller index.
    auto rank(int v, const std::vector<int>& group, const std::vector<int>& cand) const {
        Weight weakest = kUnlimited;
        Weight added = 0;
        for (int s : group) {
            weakest = std::min(weakest, p.w(s, v));
            added += p.w(s, v);
        }
        int kept = 0;
        if (cand.size() <= kCrowdLimit) {
            for (int u : cand) {
                kept += (u != v && usable(u, v)) ? 1 : 0;
            }
        }
        const bool same_numa = at(p.numa, v) == at(p.numa, group.front());
        return std::make_tuple(weakest, kept, same_numa, added, -v);
    }

    std::optional<std::vector<int>> grow(std::vector<int> group) const {
        auto cand = partners(group);
        while (static_cast<int>(group.size()) < p.k) {
            if (cand.empty()) {
                return std::nullopt;
            }
            const int pick = *std::max_element(cand.begin(), cand.end(), [&](int a, int b) {
                return rank(a, group, cand) < rank(b, group, cand);
            });
            group.push_back(pick);
            std::erase_if(cand, [&](int u) { return u == pick || !usable(u, pick); });
        }
        return group;
    }

    void take(const std::vector<int>& group) {
        for (int v : group) {
            at(free, v) = 0;
        }
    }

    std::vector<int> seeds() const {
        std::vector<std::pair<int, int>> ranked;  // (free degree, position)
        for (int v = 0; v < p.n; ++v) {
            if (at(free, v) && !p.is_required(v)) {
                const int degree = free_degree(v);
                if (degree >= p.k - 1) {
                    ranked.emplace_back(degree, v);
                }
            }
        }
        std::sort(ranked.begin(), ranked.end());
        std::vector<int> out;
        for (std::size_t i = 0; i < ranked.size() && i < kSeedsPerGroup; ++i) {
            out.push_back(ranked[i].second);
        }
        return out;
    }

    bool add_one_group(Groups& groups) {
        for (int seed : seeds()) {
            if (auto group = grow({seed})) {
                take(*group);
                groups.push_back(std::move(*group));
                return true;
            }
        }
        return false;
    }
};

}  // namespace

std::optional<Groups> greedy_at(const Problem& problem, Weight threshold) {
    Packer packer{problem, threshold, std::vector<char>(static_cast<std::size_t>(problem.n), 1)};
    Groups groups;
    if (problem.required_count > 0) {
        std::vector<int> required;
        for (int v = 0; v < problem.n; ++v) {
            if (problem.is_required(v)) {
                required.push_back(v);
            }
        }
        auto group = packer.grow(required);
        if (!group) {
            return std::nullopt;
        }
        packer.take(*group);
        groups.push_back(std::move(*group));
    }
    while (static_cast<int>(groups.size()) < problem.g) {
        if (!packer.add_one_group(groups)) {
            return std::nullopt;
        }
    }
    normalise(groups);
    return groups;
}

Groups heuristic_placement(const Problem& problem, Weight ceiling) {
    const auto weights = distinct_weights(problem);
    // The lowest weight admits every pair, so the greedy cannot get stuck there.
    std::size_t lo = 0;
    std::size_t hi = static_cast<std::size_t>(std::upper_bound(weights.begin(), weights.end(), ceiling) -
                                              weights.begin());
    hi = hi == 0 ? 0 : hi - 1;
    Groups best = greedy_at(problem, weights.front()).value_or(Groups{});
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (auto groups = greedy_at(problem, weights[mid])) {
            best = std::move(*groups);
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    improve_by_swaps(problem, best, kSwapEvaluations);
    normalise(best);
    return best;
}

}  // namespace peergate::policy::placement
