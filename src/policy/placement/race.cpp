// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/race.hpp"

#include "policy/placement/assign.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <optional>
#include <system_error>
#include <thread>

namespace peergate::policy::placement {

namespace {

// Neither finished: both ran their whole budgets, so the better placement (then the
// smaller list) is the same on every run.
SearchResult better_of(SearchResult a, SearchResult b) {
    normalise(a.groups);
    normalise(b.groups);
    const bool b_wins = !a.found || (b.found && preferred(b.score, b.groups, a.score, a.groups));
    return b_wins ? b : a;
}

// Where neither finished, each bound either has proven holds: the tighter one stands.
std::optional<Score> tighter_upper(const SearchResult& a, const SearchResult& b) {
    if (a.upper && b.upper) {
        return std::min(*a.upper, *b.upper);
    }
    return a.upper ? a.upper : b.upper;
}

SearchResult combined(const SearchResult& by_group, const SearchResult& all_groups) {
    SearchResult out = by_group.complete     ? by_group
                       : all_groups.complete ? all_groups
                                             : better_of(by_group, all_groups);
    out.nodes = by_group.nodes + all_groups.nodes;
    if (!out.complete) {
        out.upper = tighter_upper(by_group, all_groups);
    }
    return out;
}

// One CPU: the two take turns, half the budget each, the group-by-group search first (its
// best placement then seeds the other).
SearchResult one_after_the_other(const Problem& problem,
                                 Weight threshold,
                                 const Groups& incumbent,
                                 std::uint64_t node_budget,
                                 const std::vector<int>& level_caps) {
    SearchResult by_group =
        optimise_packing(problem, threshold, incumbent, node_budget / 2, level_caps);
    if (by_group.complete) {
        return by_group;
    }
    const std::uint64_t rest = node_budget - node_budget / 2;
    return combined(by_group,
                    assign_packing(problem, threshold, by_group.groups, rest, level_caps));
}

// Both searches side by side, the first to finish stopping the other.
SearchResult side_by_side(const Problem& problem,
                          Weight threshold,
                          const Groups& incumbent,
                          std::uint64_t node_budget,
                          const std::vector<int>& level_caps) {
    std::atomic<bool> finished{false};
    std::future<SearchResult> all_groups;
    const std::uint64_t all_groups_budget = all_groups_share(problem, node_budget);
    try {
        all_groups = std::async(std::launch::async, [&] {
            SearchResult found = assign_packing(
                problem, threshold, incumbent, all_groups_budget, level_caps, &finished);
            if (found.complete) {
                finished.store(true);
            }
            return found;
        });
    } catch (const std::system_error&) {
        return one_after_the_other(problem, threshold, incumbent, node_budget, level_caps);
    }
    SearchResult by_group;
    try {
        by_group =
            optimise_packing(problem, threshold, incumbent, node_budget, level_caps, &finished);
    } catch (...) {
        finished.store(true);  // so that the future's destructor does not wait out a whole budget
        throw;
    }
    if (by_group.complete) {
        finished.store(true);
    }
    return combined(by_group, all_groups.get());
}

}  // namespace

// The all-groups search's nodes cost 0.2-0.9 us with groups of 6 or more and up to 1.1 us
// with smaller ones (its bound visits every open group per candidate; more with both
// threads busy), against 0.1-0.7 us for the group-by-group search's: it gets three fifths
// of the budget, half with groups of up to 4, so that a solve that finishes neither stays
// under a second on this VM (docs/PERFORMANCE.md, "place: cheaper nodes").
constexpr int kSmallGroups = 4;

std::uint64_t all_groups_share(const Problem& problem, std::uint64_t node_budget) {
    return problem.k <= kSmallGroups ? node_budget / 2 : node_budget / 5 * 3;
}

SearchResult race_searches(const Problem& problem,
                           Weight threshold,
                           const Groups& incumbent,
                           std::uint64_t node_budget,
                           const std::vector<int>& level_caps,
                           Searches searches) {
    if (searches == Searches::all_groups_only) {
        return assign_packing(problem, threshold, incumbent, node_budget, level_caps);
    }
    if (searches == Searches::in_turn || std::thread::hardware_concurrency() < 2) {
        return one_after_the_other(problem, threshold, incumbent, node_budget, level_caps);
    }
    // Most problems are settled by the group-by-group search in a few thousand nodes, well
    // under the cost of starting a thread; its best placement then seeds both.
    SearchResult first = optimise_packing(
        problem, threshold, incumbent, std::min(node_budget, kAloneNodes), level_caps);
    if (first.complete) {
        return first;
    }
    const std::uint64_t left = node_budget > first.nodes ? node_budget - first.nodes : 0;
    SearchResult raced = side_by_side(problem, threshold, first.groups, left, level_caps);
    raced.nodes += first.nodes;
    return raced;
}

}  // namespace peergate::policy::placement
