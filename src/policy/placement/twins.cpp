// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/twins.hpp"

namespace peergate::policy::placement {

namespace {

bool twins(const Problem& p, int u, int v) {
    if (at(p.numa, u) != at(p.numa, v) || p.is_required(u) != p.is_required(v)) {
        return false;
    }
    for (int x = 0; x < p.n; ++x) {
        if (x != u && x != v && p.w(u, x) != p.w(v, x)) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::vector<int> previous_twins(const Problem& problem) {
    std::vector<int> previous(static_cast<std::size_t>(problem.n), -1);
    for (int v = 0; v < problem.n; ++v) {
        for (int u = v - 1; u >= 0 && at(previous, v) < 0; --u) {
            at(previous, v) = twins(problem, u, v) ? u : -1;
        }
    }
    return previous;
}

}  // namespace peergate::policy::placement
