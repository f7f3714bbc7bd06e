// SPDX-License-Identifier: Apache-2.0
// A group being filled, as both exact searches keep it (n <= 64).
#pragma once

#include "policy/placement/bits.hpp"
#include "policy/placement/problem.hpp"

#include <algorithm>

namespace peergate::policy::placement {

struct Slot {
    Mask members = 0;
    int size = 0;
    Weight bottleneck = kUnlimited;
    Weight weight_sum = 0;
    Mask classes = 0;            // NUMA classes, as bits
    Mask compatible = ~Mask{0};  // candidates whose pairs to every member reach the threshold
                                 // (kept by the all-groups search only)
};

// `slot` with `v` added (its compatible set is left to the caller).
inline Slot joined(const Problem& problem, const Slot& slot, int v) {
    Slot next = slot;
    for (Mask m = slot.members; m != 0; m &= m - 1) {
        const Weight w = problem.w(lowest(m), v);
        next.bottleneck = std::min(next.bottleneck, w);
        next.weight_sum += w;
    }
    next.members |= bit(v);
    ++next.size;
    next.classes |= bit(at(problem.numa, v));
    return next;
}

}  // namespace peergate::policy::placement
