// SPDX-License-Identifier: Apache-2.0
#include "policy/placement_numa_bounds.hpp"

#include "util/cpu_clones.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <numeric>

namespace peergate::policy::placement {

namespace {

// Whether `mixed` groups spanning NUMA classes can be filled once the other m - mixed stay
// inside one class each: a mixed group takes at most K-1 members of any one class, so a
// class gives the mixed groups at most min(its members left, mixed * (K-1)). Pure groups
// are taken where that costs least; the loss of each further one never shrinks, so taking
// the cheapest one at a time is optimal.
bool mixed_fill(
    const std::vector<int>& members, const std::vector<int>& pure, int k, int m, int mixed) {
    const int cap = mixed * (k - 1);
    const auto given = [&](std::size_t c, int taken) {
        return std::min(members[c] - k * taken, cap);
    };
    std::vector<int> taken(members.size(), 0);
    Weight offered = 0;
    for (std::size_t c = 0; c < members.size(); ++c) {
        offered += given(c, 0);
    }
    for (int left = m - mixed; left > 0; --left) {
        std::size_t cheapest = members.size();
        int least = 0;
        for (std::size_t c = 0; c < members.size(); ++c) {
            const int loss = taken[c] < pure[c] ? given(c, taken[c]) - given(c, taken[c] + 1) : -1;
            if (loss >= 0 && (cheapest == members.size() || loss < least)) {
                cheapest = c;
                least = loss;
            }
        }
        if (cheapest == members.size()) {
            return false;  // not enough pure groups
        }
        offered -= least;
        ++taken[cheapest];
    }
    return offered >= Weight{mixed} * k;
}

}  // namespace

int fewest_mixed(const std::vector<int>& members, const std::vector<int>& pure, int k, int m) {
    int mixed = m - std::min(m, std::accumulate(pure.begin(), pure.end(), 0));
    while (mixed < m && !mixed_fill(members, pure, k, m, mixed)) {
        ++mixed;
    }
    return mixed;
}

int classes_to_seat(std::vector<int>& offers, int need) {
    std::sort(offers.begin(), offers.end(), std::greater<>());
    int classes = 0;
    for (int seated = 0; seated < need && classes < static_cast<int>(offers.size()); ++classes) {
        seated += std::min(offers[static_cast<std::size_t>(classes)], need);
    }
    return classes;
}

std::vector<std::uint64_t> class_masks(const Problem& p) {
    std::vector<std::uint64_t> masks(static_cast<std::size_t>(p.numa_classes), 0);
    for (int v = 0; v < p.n && v < 64; ++v) {
        at(masks, at(p.numa, v)) |= std::uint64_t{1} << v;
    }
    return masks;
}

PEERGATE_WITH_POPCNT int classes_to_add(const std::vector<std::uint64_t>& class_members,
                                        std::uint64_t classes,
                                        std::uint64_t cand,
                                        int missing,
                                        std::vector<int>& offers) {
    std::uint64_t own = 0;
    for (std::uint64_t c = classes; c != 0; c &= c - 1) {
        own |= at(class_members, std::countr_zero(c));
    }
    const int short_by = missing - std::popcount(cand & own);
    if (short_by <= 0) {
        return 0;
    }
    offers.clear();
    for (std::size_t c = 0; c < class_members.size(); ++c) {
        offers.push_back(((classes >> c) & 1U) != 0 ? 0 : std::popcount(cand & class_members[c]));
    }
    return classes_to_seat(offers, short_by);
}

int fewest_spans(const std::vector<int>& members, int k, int m, std::vector<int>& pieces) {
    if (m == 0) {
        return 0;
    }
    // One group: one piece per class, of at most K.
    pieces.clear();
    for (int count : members) {
        pieces.push_back(std::min(count, k));
    }
    const int per_group = classes_to_seat(pieces, k);
    // All m together: a class seats K per group it fills, then its remainder.
    pieces.clear();
    for (int count : members) {
        for (int left = count; left > 0; left -= k) {
            pieces.push_back(std::min(left, k));
        }
    }
    return std::max(m * per_group, classes_to_seat(pieces, m * k));
}

}  // namespace peergate::policy::placement
