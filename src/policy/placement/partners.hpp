// SPDX-License-Identifier: Apache-2.0
// How heavy a candidate's partners are among a set of candidates: the bound of the
// all-groups search asks this for every undecided GPU and every open group at every node.
#pragma once

#include "policy/placement/bounds.hpp"

#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

class PartnerCounter {
public:
    PartnerCounter(const Problem& problem, const Neighbours& neighbours);

    // Among the usable partners of `v` in `among` (n <= 64).
    Partners partners(int v, std::uint64_t among, int kth) const {
        return heaviest_partners(p_, nb_, v, among, kth, steps_);
    }

    // Scan steps taken by a caller that counted partners itself.
    void charge(std::uint64_t steps) const { steps_ += steps; }

    // The heaviest pair `v` has at or above the threshold (0: none).
    Weight heaviest(int v) const { return at(heaviest_, v); }

    // Scan steps taken so far: the search charges them to its budget.
    std::uint64_t steps() const { return steps_; }

private:
    const Problem& p_;
    const Neighbours& nb_;
    std::vector<Weight> heaviest_;  // per candidate
    mutable std::uint64_t steps_ = 0;
};

}  // namespace peergate::policy::placement
