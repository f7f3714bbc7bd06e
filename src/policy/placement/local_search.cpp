// SPDX-License-Identifier: Apache-2.0
// Swap moves (local_search.hpp). A move is
// scored in O(K) from each group's profile, plus, only when it touches the weakest group,
// O(G); a profile is rebuilt in O(K^2) only when its group changes.
#include "policy/placement/local_search.hpp"

#include <algorithm>

namespace peergate::policy::placement {

namespace {

// What scoring a member's replacement needs to know of a group. At n = 256 with groups of
// 16, scoring each swap from scratch in O(K^2) took three quarters of the heuristic's time.
struct GroupProfile {
    std::vector<Weight> row;      // per member: the weight of its pairs in the group
    std::vector<Weight> without;  // per member: the weakest pair not involving it
    std::vector<int> per_class;   // members per NUMA class
};

GroupProfile profile_of(const Problem& p, const std::vector<int>& group) {
    const std::size_t k = group.size();
    GroupProfile profile{
        .row = std::vector<Weight>(k, 0),
        .without = std::vector<Weight>(k, kUnlimited),
        .per_class = std::vector<int>(static_cast<std::size_t>(p.numa_classes), 0)};
    std::size_t weak_a = 0;
    std::size_t weak_b = 0;
    Weight weakest = kUnlimited;
    for (std::size_t i = 0; i < k; ++i) {
        ++at(profile.per_class, at(p.numa, group[i]));
        for (std::size_t j = i + 1; j < k; ++j) {
            const Weight w = p.w(group[i], group[j]);
            profile.row[i] += w;
            profile.row[j] += w;
            if (w < weakest) {
                weakest = w;
                weak_a = i;
                weak_b = j;
            }
        }
    }
    // Without a member outside the weakest pair, the weakest pair stays; without one of
    // its two, the weakest of the pairs left.
    for (std::size_t i = 0; i < k; ++i) {
        if (i != weak_a && i != weak_b) {
            profile.without[i] = weakest;
            continue;
        }
        for (std::size_t a = 0; a < k; ++a) {
            for (std::size_t b = a + 1; b < k && a != i; ++b) {
                if (b != i) {
                    profile.without[i] = std::min(profile.without[i], p.w(group[a], group[b]));
                }
            }
        }
    }
    return profile;
}

// The stats of `group` (whose stats are `now`) with member `slot` replaced by `v`.
GroupStats stats_replacing(const Problem& p,
                           const std::vector<int>& group,
                           const GroupStats& now,
                           const GroupProfile& profile,
                           std::size_t slot,
                           int v) {
    GroupStats stats{.bottleneck = profile.without[slot],
                     .weight_sum = now.weight_sum - profile.row[slot]};
    for (std::size_t j = 0; j < group.size(); ++j) {
        if (j != slot) {
            const Weight w = p.w(v, group[j]);
            stats.weight_sum += w;
            stats.bottleneck = std::min(stats.bottleneck, w);
        }
    }
    const int leaving = at(p.numa, group[slot]);
    const int joining = at(p.numa, v);
    const int left_of_joining = at(profile.per_class, joining) - (joining == leaving ? 1 : 0);
    stats.spans =
        now.spans - (at(profile.per_class, leaving) == 1 ? 1 : 0) + (left_of_joining == 0 ? 1 : 0);
    return stats;
}

class SwapSearch {
public:
    SwapSearch(const Problem& problem, Groups& groups, std::uint64_t evaluations)
        : p_(problem),
          groups_(groups),
          budget_(evaluations),
          leftover_(leftover_of(problem, groups)) {
        current_ = PlacementObjective{.min_bottleneck = kUnlimited, .sum_bottleneck = 0};
        for (const auto& group : groups_) {
            stats_.push_back(group_stats(p_, group));
            profiles_.push_back(profile_of(p_, group));
            add(current_, stats_.back(), +1);
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
        at_min_ =
            static_cast<int>(std::count_if(stats_.begin(), stats_.end(), [&](const GroupStats& s) {
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
    PlacementObjective after(std::size_t a,
                             const GroupStats& na,
                             std::size_t b,
                             const GroupStats& nb) const {
        PlacementObjective next = current_;
        add(next, stats_[a], -1);
        add(next, na, +1);
        if (b != a) {
            add(next, stats_[b], -1);
            add(next, nb, +1);
        }
        const int changed_at_min =
            (stats_[a].bottleneck == current_.min_bottleneck ? 1 : 0) +
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
        const GroupStats na =
            stats_replacing(p_, groups_[a], stats_[a], profiles_[a], i, groups_[b][j]);
        const GroupStats nb =
            stats_replacing(p_, groups_[b], stats_[b], profiles_[b], j, groups_[a][i]);
        const auto next = after(a, na, b, nb);
        if (!better(next, current_)) {
            return false;
        }
        std::swap(groups_[a][i], groups_[b][j]);
        stats_[a] = na;
        stats_[b] = nb;
        profiles_[a] = profile_of(p_, groups_[a]);
        profiles_[b] = profile_of(p_, groups_[b]);
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
        const GroupStats na =
            stats_replacing(p_, groups_[a], stats_[a], profiles_[a], i, leftover_[l]);
        const auto next = after(a, na, a, na);
        if (!better(next, current_)) {
            return false;
        }
        std::swap(groups_[a][i], leftover_[l]);
        stats_[a] = na;
        profiles_[a] = profile_of(p_, groups_[a]);
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
    std::vector<GroupProfile> profiles_;
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
