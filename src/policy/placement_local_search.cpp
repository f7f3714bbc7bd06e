// SPDX-License-Identifier: Apache-2.0
// Swap moves for the heuristic placement (declared in placement_heuristic.hpp).
#include <algorithm>

#include "policy/placement_heuristic.hpp"

namespace peergate::policy::placement {

namespace {

class SwapSearch {
public:
    SwapSearch(const Problem& problem, Groups& groups, std::uint64_t evaluations)
        : p_(problem), groups_(groups), budget_(evaluations) {
        std::vector<char> used(static_cast<std::size_t>(p_.n), 0);
        for (const auto& group : groups_) {
            stats_.push_back(group_stats(p_, group));
            for (int v : group) {
                at(used, v) = 1;
            }
        }
        for (int v = 0; v < p_.n; ++v) {
            if (!at(used, v)) {
                leftover_.push_back(v);
            }
        }
        current_ = total({});
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
    struct Change {
        std::size_t group;
        GroupStats stats;
    };

    PlacementObjective total(const std::vector<Change>& changes) const {
        PlacementObjective objective{.min_bottleneck = kUnlimited, .sum_bottleneck = 0};
        for (std::size_t i = 0; i < stats_.size(); ++i) {
            const GroupStats* s = &stats_[i];
            for (const auto& change : changes) {
                s = change.group == i ? &change.stats : s;
            }
            objective.min_bottleneck = std::min(objective.min_bottleneck, s->bottleneck);
            objective.sum_bottleneck += s->bottleneck;
            objective.sum_pair_weight += s->weight_sum;
            objective.numa_spans += s->spans;
        }
        return objective;
    }

    // Replaces member `slot` of group `g` by `v`, returning the group's new stats.
    GroupStats with(std::size_t g, std::size_t slot, int v) const {
        auto group = groups_[g];
        group[slot] = v;
        return group_stats(p_, group);
    }

    bool try_swap(std::size_t a, std::size_t i, std::size_t b, std::size_t j) {
        ++spent_;
        const int va = groups_[a][i];
        const int vb = groups_[b][j];
        std::vector<Change> changes{{a, with(a, i, vb)}, {b, with(b, j, va)}};
        const auto next = total(changes);
        if (!better(next, current_)) {
            return false;
        }
        std::swap(groups_[a][i], groups_[b][j]);
        stats_[a] = changes[0].stats;
        stats_[b] = changes[1].stats;
        current_ = next;
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

    bool with_leftover(std::size_t a) {
        bool improved = false;
        for (std::size_t i = 0; i < groups_[a].size(); ++i) {
            for (std::size_t l = 0; l < leftover_.size() && spent_ < budget_; ++l) {
                if (p_.is_required(groups_[a][i])) {
                    continue;
                }
                ++spent_;
                std::vector<Change> changes{{a, with(a, i, leftover_[l])}};
                const auto next = total(changes);
                if (better(next, current_)) {
                    std::swap(groups_[a][i], leftover_[l]);
                    stats_[a] = changes[0].stats;
                    current_ = next;
                    improved = true;
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
