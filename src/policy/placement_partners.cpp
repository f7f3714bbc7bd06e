// SPDX-License-Identifier: Apache-2.0
#include "util/cpu_clones.hpp"
#include "policy/placement_partners.hpp"

#include <algorithm>
#include <bit>

namespace peergate::policy::placement {

PartnerCounter::PartnerCounter(const Problem& problem, const Neighbours& neighbours) : p_(problem), nb_(neighbours) {
    for (Weight level : distinct_weights(p_)) {
        if (level >= nb_.threshold) {
            levels_.push_back(level);
        }
    }
    std::reverse(levels_.begin(), levels_.end());  // heaviest first
    masks_.assign(static_cast<std::size_t>(p_.n) * levels_.size(), 0);
    for (int v = 0; v < p_.n; ++v) {
        for (int u = 0; u < p_.n; ++u) {
            const auto level = std::find(levels_.begin(), levels_.end(), p_.w(v, u));
            if (u != v && level != levels_.end()) {
                masks_[static_cast<std::size_t>(v) * levels_.size() + static_cast<std::size_t>(level - levels_.begin())] |=
                    std::uint64_t{1} << u;
            }
        }
    }
}

PEERGATE_WITH_POPCNT Partners PartnerCounter::by_level(int v, std::uint64_t among, int kth) const {
    Partners found{.enough = kth == 0};
    int missing = kth;
    const std::uint64_t* masks = &masks_[static_cast<std::size_t>(v) * levels_.size()];
    for (std::size_t l = 0; l < levels_.size() && missing > 0; ++l) {
        ++steps_;
        const int here = std::min(missing, std::popcount(masks[l] & among));
        if (here > 0) {
            found.kth = levels_[l];
            found.top += here * levels_[l];
            missing -= here;
        }
    }
    found.enough = missing == 0;
    return found;
}

}  // namespace peergate::policy::placement
