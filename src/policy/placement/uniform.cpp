// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/uniform.hpp"

#include <algorithm>

namespace peergate::policy::placement {

namespace {

using Classes = std::vector<std::vector<int>>;  // members of each NUMA class, ascending

// Each class holds floor(size / K) groups of its own: the smallest undecided candidate
// opens a group with the K-1 next members of its class, or is left out when fewer remain.
// Candidates of a class are consumed front to back, so `next[c]` is the smallest undecided
// member of class c and the candidate at hand is always that one.
Groups groups_within_classes(const Problem& problem, const Classes& members) {
    std::vector<std::size_t> next(members.size(), 0);
    const auto k = static_cast<std::size_t>(problem.k);
    Groups groups;
    for (int v = 0; v < problem.n && static_cast<int>(groups.size()) < problem.g; ++v) {
        const auto& cls = at(members, at(problem.numa, v));
        auto& from = at(next, at(problem.numa, v));
        if (from >= cls.size() || cls[from] != v) {
            continue;  // already placed as a later member of an earlier group
        }
        if (cls.size() - from >= k) {
            groups.emplace_back(cls.begin() + static_cast<std::ptrdiff_t>(from),
                                cls.begin() + static_cast<std::ptrdiff_t>(from + k));
            from += k;
        } else {
            ++from;  // fewer than K left in its class: v stays out of every group
        }
    }
    return groups;
}

// Each group the union of K/S whole classes of the largest size S (S divides K): no group
// can span fewer, since no class gives it more than S. The smallest list then takes, for
// each group in turn, the class of the smallest candidate not yet placed and the classes
// of the next smallest ones; candidates of smaller classes stay out of every group.
Groups groups_of_whole_classes(const Problem& problem,
                               const Classes& members,
                               std::size_t largest) {
    std::vector<char> taken(members.size(), 0);
    Groups groups;
    for (int v = 0; v < problem.n && static_cast<int>(groups.size()) < problem.g; ++v) {
        const auto c = static_cast<std::size_t>(at(problem.numa, v));
        if (taken[c] || members[c].size() != largest) {
            continue;
        }
        auto& group = groups.emplace_back();
        for (int u = v; u < problem.n && group.size() < static_cast<std::size_t>(problem.k); ++u) {
            const auto cu = static_cast<std::size_t>(at(problem.numa, u));
            if (!taken[cu] && members[cu].size() == largest) {
                taken[cu] = 1;
                group.insert(group.end(), members[cu].begin(), members[cu].end());
            }
        }
        std::sort(group.begin(), group.end());
    }
    return groups;
}

}  // namespace

std::optional<Groups> uniform_placement(const Problem& problem) {
    if (problem.required_count > 0 || !uniform_weights(problem)) {
        return std::nullopt;
    }
    Classes members(static_cast<std::size_t>(problem.numa_classes));
    for (int v = 0; v < problem.n; ++v) {
        at(members, at(problem.numa, v)).push_back(v);
    }
    const auto k = static_cast<std::size_t>(problem.k);
    std::size_t within = 0;  // groups the classes hold alone
    std::size_t largest = 0;
    for (const auto& cls : members) {
        within += cls.size() / k;
        largest = std::max(largest, cls.size());
    }
    if (within >= static_cast<std::size_t>(problem.g)) {
        return groups_within_classes(problem, members);
    }
    const auto whole = static_cast<std::size_t>(std::count_if(
        members.begin(), members.end(), [&](const auto& cls) { return cls.size() == largest; }));
    if (largest > 0 && k % largest == 0 &&
        whole >= static_cast<std::size_t>(problem.g) * (k / largest)) {
        return groups_of_whole_classes(problem, members, largest);
    }
    return std::nullopt;
}

}  // namespace peergate::policy::placement
