// SPDX-License-Identifier: Apache-2.0
// How heavy a candidate's partners are among a set of candidates: the bound of the
// all-groups search asks this for every undecided GPU and every open group at every node.
#pragma once

#include <cstdint>
#include <vector>

#include "policy/placement_bounds.hpp"

namespace peergate::policy::placement {

class PartnerCounter {
public:
    PartnerCounter(const Problem& problem, const Neighbours& neighbours);

    // Among the usable partners of `v` in `among` (n <= 64). Counted level by level (a bit
    // count each) where there are few distinct weights, as on PCIe trees; otherwise along
    // the partners heaviest first.
    Partners partners(int v, std::uint64_t among, int kth) const {
        return levels_.size() <= kFewLevels ? by_level(v, among, kth) : heaviest_partners(p_, nb_, v, among, kth, steps_);
    }

    // Scan steps taken so far: the search charges them to its budget.
    std::uint64_t steps() const { return steps_; }

private:
    static constexpr std::size_t kFewLevels = 6;

    Partners by_level(int v, std::uint64_t among, int kth) const;

    const Problem& p_;
    const Neighbours& nb_;
    std::vector<Weight> levels_;        // distinct weights >= the threshold, heaviest first
    std::vector<std::uint64_t> masks_;  // per candidate, per level: partners at that weight
    mutable std::uint64_t steps_ = 0;
};

}  // namespace peergate::policy::placement
