// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/heuristic.hpp"

#include "policy/placement/local_search.hpp"

#include <algorithm>
#include <tuple>

namespace peergate::policy::placement {

namespace {

constexpr std::size_t kSeedsPerGroup = 4;
constexpr std::size_t kCrowdLimit = 96;  // beyond this, skip the quadratic tie-breaker
// A swap is scored in about K^2 pair reads; this many reads keep the swaps near 50 ms at
// 256 GPUs whatever K is.
constexpr std::uint64_t kSwapPairReads = 40'000'000;

struct Packer {
    const Problem& p;
    Weight t;
    std::vector<char> free;
    std::vector<int> degree;  // usable partners still free

    Packer(const Problem& problem, Weight threshold)
        : p(problem),
          t(threshold),
          free(static_cast<std::size_t>(problem.n), 1),
          degree(static_cast<std::size_t>(problem.n), 0) {
        for (int a = 0; a < p.n; ++a) {
            for (int b = 0; b < p.n; ++b) {
                at(degree, a) += (a != b && usable(a, b)) ? 1 : 0;
            }
        }
    }

    bool usable(int a, int b) const { return p.w(a, b) >= t; }

    std::vector<int> partners(const std::vector<int>& group) const {
        std::vector<int> cand;
        for (int v = 0; v < p.n; ++v) {
            const bool fits = std::all_of(
                group.begin(), group.end(), [&](int s) { return s != v && usable(s, v); });
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
            for (int u = 0; u < p.n; ++u) {
                at(degree, u) -= (u != v && usable(u, v)) ? 1 : 0;
            }
        }
    }

    std::vector<int> seeds() const {
        std::vector<std::pair<int, int>> ranked;  // (free degree, position)
        for (int v = 0; v < p.n; ++v) {
            if (at(free, v) && !p.is_required(v)) {
                if (at(degree, v) >= p.k - 1) {
                    ranked.emplace_back(at(degree, v), v);
                }
            }
        }
        const auto keep = std::min(ranked.size(), kSeedsPerGroup);
        std::partial_sort(
            ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end());
        std::vector<int> out;
        for (std::size_t i = 0; i < keep; ++i) {
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
    Packer packer(problem, threshold);
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

namespace {

// Like greedy_at without required GPUs, but where the greedy gets stuck the remaining
// groups take the free candidates in order, for the swaps to repair: when every candidate
// must be used, the last groups are what the greedy cannot choose.
Groups greedy_filled(const Problem& problem, Weight threshold) {
    Packer packer(problem, threshold);
    Groups groups;
    while (static_cast<int>(groups.size()) < problem.g && packer.add_one_group(groups)) {
    }
    std::vector<int> rest;
    for (int v = 0; v < problem.n; ++v) {
        if (at(packer.free, v)) {
            rest.push_back(v);
        }
    }
    const auto k = static_cast<std::ptrdiff_t>(problem.k);
    for (auto next = rest.begin(); static_cast<int>(groups.size()) < problem.g; next += k) {
        groups.emplace_back(next, next + k);
    }
    normalise(groups);
    return groups;
}

Groups swapped(const Problem& problem, Groups groups, std::uint64_t pair_reads) {
    const auto per_swap =
        static_cast<std::uint64_t>(problem.k) * static_cast<std::uint64_t>(problem.k + 1);
    improve_by_swaps(problem, groups, pair_reads / per_swap);
    normalise(groups);
    return groups;
}

}  // namespace

Groups heuristic_placement(const Problem& problem, Weight ceiling) {
    const auto weights = distinct_weights(problem);
    // The lowest weight admits every pair, so the greedy cannot get stuck there.
    std::size_t lo = 0;
    std::size_t hi = static_cast<std::size_t>(
        std::upper_bound(weights.begin(), weights.end(), ceiling) - weights.begin());
    hi = hi == 0 ? 0 : hi - 1;
    const std::size_t top = hi;
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
    if (lo == top || problem.required_count > 0) {
        return swapped(problem, std::move(best), kSwapPairReads);
    }
    // The greedy got stuck above weights[lo]: also repair a partial packing from there.
    Groups plain = swapped(problem, std::move(best), kSwapPairReads / 2);
    Groups filled = swapped(problem, greedy_filled(problem, weights[lo + 1]), kSwapPairReads / 2);
    return better(evaluate(problem, filled), evaluate(problem, plain)) ? filled : plain;
}

}  // namespace peergate::policy::placement
