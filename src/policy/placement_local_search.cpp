// SPDX-License-Identifier: Apache-2.0
// Swap moves for the heuristic placement (declared in placement_heuristic.hpp). A move is
// scored in O(K^2) plus, only when it touches the weakest group, O(G): no allocation.
#include <algorithm>

#include "policy/placement_heuristic.hpp"

namespace peergate::policy::placement {

namespace {

// The stats of `group` with member `slot` replaced by `v`.
GroupStats stats_replacing(const Problem& p, const std::vector<int>& group, std::size_t slot, int v) {
    GroupStats stats;
    const auto member = [&](std::size_t i) { return i == slot ? v : group[i]; };
    for (std::size_t i = 0; i < group.size(); ++i) {
        bool new_class = true;
        for (std::size_t j = 0; j < i; ++j) {
            const Weight w = p.w(member(i), member(j));
            stats.weight_sum += w;
            stats.bottleneck = std::min(stats.bottleneck, w);
            new_class = new_class && at(p.numa, member(i)) != at(p.numa, member(j));
        }
        stats.spans += new_class ? 1 : 0;
    }
    return stats;
}

class SwapSearch {
public:
    SwapSearch(const Problem& problem, Groups& groups, std::uint64_t evaluations)
        : p_(problem), groups_(groups), budget_(evaluations) {
        std::vector<char> used(static_cast<std::size_t>(p_.n), 0);
        current_ = PlacementObjective{.min_bottleneck = kUnlimited, .sum_bottleneck = 0};
        for (const auto& group : groups_) {
            stats_.push_back(group_stats(p_, group));
            add(current_, stats_.back(), +1);
            for (int v : group) {
                at(used, v) = 1;
            }
        }
        for (int v = 0; v < p_.n; ++v) {
            if (!at(used, v)) {
                leftover_.push_back(v);
            }
        }
        settle(current_);
    }

    void run() {
        bool improved = true;
        while (improved && spent_ < budget_) {
            improved = false;
            for (std::size_t a = 0; a < groups_.size(); ++a) {
                for (std::size_t b = a + 1; b < groups_.size(); ++b) {
                    improved = between_groups(a, b) || improved;
                }
                improved = with_leftover(a) || improved;
            }
        }
    }

private:
    // Accepts the objective after a move and counts the groups at its weakest link again.
    void settle(const PlacementObjective& next) {
        current_ = next;
        at_min_ = static_cast<int>(std::count_if(stats_.begin(), stats_.end(), [&](const GroupStats& s) {
            return s.bottleneck == current_.min_bottleneck;
        }));
    }

    static void add(PlacementObjective& o, const GroupStats& s, int sign) {
        o.min_bottleneck = std::min(o.min_bottleneck, s.bottleneck);
        o.sum_bottleneck += sign * s.bottleneck;
        o.sum_pair_weight += sign * s.weight_sum;
        o.numa_spans += sign * s.spans;
    }

    // The objective with groups a (and b, unless b == a) changed to na (and nb).
    PlacementObjective after(std::size_t a, const GroupStats& na, std::size_t b, const GroupStats& nb) const {
        PlacementObjective next = current_;
        add(next, stats_[a], -1);
        add(next, na, +1);
        if (b != a) {
            add(next, stats_[b], -1);
            add(next, nb, +1);
        }
        const int changed_at_min = (stats_[a].bottleneck == current_.min_bottleneck ? 1 : 0) +
                                   (b != a && stats_[b].bottleneck == current_.min_bottleneck ? 1 : 0);
        if (changed_at_min > 0 && changed_at_min == at_min_) {
            // The weakest group may be one that changed: take the minimum afresh.
            next.min_bottleneck = std::min(na.bottleneck, nb.bottleneck);
            for (std::size_t g = 0; g < stats_.size(); ++g) {
                if (g != a && g != b) {
                    next.min_bottleneck = std::min(next.min_bottleneck, stats_[g].bottleneck);
                }
            }
        }
        return next;
    }

    bool try_swap(std::size_t a, std::size_t i, std::size_t b, std::size_t j) {
        ++spent_;
        const GroupStats na = stats_replacing(p_, groups_[a], i, groups_[b][j]);
        const GroupStats nb = stats_replacing(p_, groups_[b], j, groups_[a][i]);
        const auto next = after(a, na, b, nb);
        if (!better(next, current_)) {
            return false;
        }
        std::swap(groups_[a][i], groups_[b][j]);
        stats_[a] = na;
        stats_[b] = nb;
        settle(next);
        return true;
    }

    bool between_groups(std::size_t a, std::size_t b) {
        bool improved = false;
        for (std::size_t i = 0; i < groups_[a].size(); ++i) {
            for (std::size_t j = 0; j < groups_[b].size() && spent_ < budget_; ++j) {
                if (!p_.is_required(groups_[a][i]) && !p_.is_required(groups_[b][j])) {
                    improved = try_swap(a, i, b, j) || improved;
                }
            }
        }
        return improved;
    }

    bool try_leftover(std::size_t a, std::size_t i, std::size_t l) {
        ++spent_;
        const GroupStats na = stats_replacing(p_, groups_[a], i, leftover_[l]);
        const auto next = after(a, na, a, na);
        if (!better(next, current_)) {
            return false;
        }
        std::swap(groups_[a][i], leftover_[l]);
        stats_[a] = na;
        settle(next);
        return true;
    }

    bool with_leftover(std::size_t a) {
        bool improved = false;
        for (std::size_t i = 0; i < groups_[a].size(); ++i) {
            for (std::size_t l = 0; l < leftover_.size() && spent_ < budget_; ++l) {
                if (!p_.is_required(groups_[a][i])) {
                    improved = try_leftover(a, i, l) || improved;
                }
            }
        }
        return improved;
    }

    const Problem& p_;
    Groups& groups_;
    std::uint64_t budget_;
    std::uint64_t spent_ = 0;
    std::vector<GroupStats> stats_;
    std::vector<int> leftover_;
    PlacementObjective current_;
    int at_min_ = 0;  // groups whose bottleneck is the weakest link
};

}  // namespace

void improve_by_swaps(const Problem& problem, Groups& groups, std::uint64_t evaluations) {
    if (problem.k < 2 || groups.empty()) {
        return;
    }
    SwapSearch search(problem, groups, evaluations);
    search.run();
}

}  // namespace peergate::policy::placement
