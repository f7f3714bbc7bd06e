// SPDX-License-Identifier: Apache-2.0
#include "policy/placement_uniform.hpp"

namespace peergate::policy::placement {

std::optional<Groups> uniform_placement(const Problem& problem) {
    if (problem.required_count > 0 || !uniform_weights(problem)) {
        return std::nullopt;
    }
    std::vector<std::vector<int>> members(static_cast<std::size_t>(problem.numa_classes));
    for (int v = 0; v < problem.n; ++v) {
        at(members, at(problem.numa, v)).push_back(v);  // ascending within each class
    }
    int whole = 0;
    for (const auto& cls : members) {
        whole += static_cast<int>(cls.size()) / problem.k;
    }
    if (whole < problem.g) {
        return std::nullopt;
    }
    // Candidates of a class are consumed front to back, so `next[c]` is the smallest
    // undecided member of class c and the candidate at hand is always that one.
    std::vector<std::size_t> next(members.size(), 0);
    const auto k = static_cast<std::size_t>(problem.k);
    Groups groups;
    for (int v = 0; v < problem.n && static_cast<int>(groups.size()) < problem.g; ++v) {
        auto& cls = at(members, at(problem.numa, v));
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

}  // namespace peergate::policy::placement
