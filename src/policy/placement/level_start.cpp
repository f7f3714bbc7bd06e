// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/level_start.hpp"

#include "policy/placement/search_goals.hpp"

#include <algorithm>

namespace peergate::policy::placement {

namespace {

// One feasibility probe among the candidates left: the groups wanted at a level are few
// and the pool is smaller than the problem, so most settle in a few hundred nodes.
constexpr std::uint64_t kProbeNodes = 5'000;

bool required_together(const Problem& p, const Groups& groups) {
    if (p.required_count == 0) {
        return true;
    }
    return std::any_of(groups.begin(), groups.end(), [&](const std::vector<int>& group) {
        return std::count_if(group.begin(), group.end(), [&](int v) { return p.is_required(v); }) ==
               p.required_count;
    });
}

class Builder {
public:
    Builder(const Problem& problem, Weight threshold, std::uint64_t budget)
        : p_(problem), t_(threshold), budget_(budget) {}

    // The witness at `first`, the levels below it adding what fits, the threshold the rest.
    std::optional<Groups> from(std::size_t first, const std::vector<LevelWitness>& witnesses) {
        Groups placed = witnesses[first].groups;
        for (std::size_t j = first + 1; j < witnesses.size(); ++j) {
            const int want =
                static_cast<int>(witnesses[j].groups.size()) - static_cast<int>(placed.size());
            add_most(placed, witnesses[j].level, want);
        }
        const int rest = p_.g - static_cast<int>(placed.size());
        if (rest < 0 || (rest > 0 && !add(placed, t_, rest, true)) ||
            !required_together(p_, placed)) {
            return std::nullopt;
        }
        return placed;
    }

    std::uint64_t spent() const { return spent_; }

private:
    // As many as fit of `want` more groups at `level`, fewer when not all do.
    void add_most(Groups& placed, Weight level, int want) {
        for (int g = want; g > 0 && spent_ < budget_; --g) {
            if (add(placed, level, g, false)) {
                return;
            }
        }
    }

    // `g` more groups at `level` among the candidates not placed yet. Only the completion
    // keeps the required marks: it must seat whichever required GPUs are still unplaced
    // together.
    bool add(Groups& placed, Weight level, int g, bool completes) {
        const std::vector<int> left = leftover_of(p_, placed);
        if (static_cast<int>(left.size()) < g * p_.k || spent_ >= budget_) {
            return false;
        }
        Problem sub = sub_problem(p_, left, g);
        if (!completes) {
            std::fill(sub.required.begin(), sub.required.end(), 0);
            sub.required_count = 0;
        }
        const SearchResult found =
            find_packing(sub, level, std::min(kProbeNodes, budget_ - spent_));
        spent_ += found.nodes + left.size();  // building the problem is charged too
        if (!found.found) {
            return false;
        }
        for (const auto& group : found.groups) {
            auto& joined = placed.emplace_back();
            for (int v : group) {
                joined.push_back(at(left, v));
            }
            std::sort(joined.begin(), joined.end());
        }
        return true;
    }

    const Problem& p_;
    Weight t_;
    std::uint64_t budget_;
    std::uint64_t spent_ = 0;
};

}  // namespace

LevelStart level_start(const Problem& problem,
                       Weight threshold,
                       const std::vector<LevelWitness>& witnesses,
                       std::uint64_t node_budget) {
    LevelStart out;
    Builder builder(problem, threshold, node_budget);
    std::optional<PlacementObjective> best;
    for (std::size_t first = 0; first < witnesses.size(); ++first) {
        auto placed = builder.from(first, witnesses);
        if (!placed) {
            continue;
        }
        normalise(*placed);
        const PlacementObjective found = evaluate(problem, *placed);
        if (!best || better(found, *best) || (found == *best && *placed < *out.groups)) {
            best = found;
            out.groups = std::move(placed);
        }
    }
    out.nodes = builder.spent();
    return out;
}

}  // namespace peergate::policy::placement
