// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/regroup.hpp"

#include "policy/placement/search_goals.hpp"

#include <algorithm>

namespace peergate::policy::placement {

namespace {

// Enough for the search to settle two groups of up to 8 (three of up to 6) among a few
// spares; larger pools keep the best split it found within it.
constexpr std::uint64_t kPairNodes = 2'000;
constexpr std::uint64_t kTripleNodes = 5'000;

// Larger pools (groups of 12 or 16) improved none of 490 answers at n = 32 in the sweeps
// and took as long again as the heuristic at n = 128; a search node costs more with more
// candidates (2 us with 56).
constexpr std::size_t kMaxPool = 24;

class Regrouper {
public:
    Regrouper(const Problem& problem, Weight threshold, Groups& groups)
        : p_(problem), t_(threshold), groups_(groups), leftover_(leftover_of(problem, groups)) {}

    std::uint64_t run(std::uint64_t budget) {
        budget_ = budget;
        while (spent_ < budget_ && (every_pair() || first_better_triple())) {
        }
        normalise(groups_);
        return spent_;
    }

private:
    // Each pair once; whether any split improved.
    bool every_pair() {
        bool improved = false;
        for (std::size_t a = 0; a < groups_.size(); ++a) {
            for (std::size_t b = a + 1; b < groups_.size() && spent_ < budget_; ++b) {
                improved = resplit({a, b}, kPairNodes) || improved;
            }
        }
        return improved;
    }

    // Triples cost more: only where no pair helps, and back to pairs after the first that
    // does, since its move often leaves work for them.
    bool first_better_triple() {
        for (std::size_t a = 0; a < groups_.size(); ++a) {
            for (std::size_t b = a + 1; b < groups_.size(); ++b) {
                for (std::size_t c = b + 1; c < groups_.size() && spent_ < budget_; ++c) {
                    if (resplit({a, b, c}, kTripleNodes)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    // The chosen groups with the leftover as a problem of their own; keeps a better split.
    bool resplit(const std::vector<std::size_t>& chosen, std::uint64_t share) {
        std::vector<int> positions = leftover_;
        for (std::size_t g : chosen) {
            positions.insert(positions.end(), groups_[g].begin(), groups_[g].end());
        }
        if (positions.size() > kMaxPool) {
            return false;
        }
        std::sort(positions.begin(), positions.end());
        const Problem sub = sub_problem(p_, positions, static_cast<int>(chosen.size()));
        Groups now;
        for (std::size_t g : chosen) {
            now.push_back(local(positions, groups_[g]));
        }
        normalise(now);
        const SearchResult found = improve_packing(sub, t_, now, std::min(share, budget_ - spent_));
        // Building the pool's problem and the search's tables costs about a node per member,
        // and a pool the search settles at once must still count against the budget.
        spent_ += found.nodes + positions.size();
        if (score_of(evaluate(sub, found.groups)) <= score_of(evaluate(sub, now))) {
            return false;
        }
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            groups_[chosen[i]] = global(positions, found.groups[i]);
        }
        leftover_ = leftover_of(p_, groups_);
        return true;
    }

    static std::vector<int> local(const std::vector<int>& positions,
                                  const std::vector<int>& group) {
        std::vector<int> mapped;
        for (int v : group) {
            const auto it = std::lower_bound(positions.begin(), positions.end(), v);
            mapped.push_back(static_cast<int>(it - positions.begin()));
        }
        return mapped;
    }

    static std::vector<int> global(const std::vector<int>& positions,
                                   const std::vector<int>& group) {
        std::vector<int> mapped;
        for (int v : group) {
            mapped.push_back(at(positions, v));
        }
        return mapped;
    }

    const Problem& p_;
    Weight t_;
    Groups& groups_;
    std::vector<int> leftover_;
    std::uint64_t budget_ = 0;
    std::uint64_t spent_ = 0;
};

}  // namespace

std::uint64_t regroup_pairs(const Problem& problem,
                            Weight threshold,
                            Groups& groups,
                            std::uint64_t node_budget) {
    if (groups.size() < 2) {
        return 0;
    }
    return Regrouper(problem, threshold, groups).run(node_budget);
}

}  // namespace peergate::policy::placement
