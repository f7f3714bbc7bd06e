// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/numa_bounds.hpp"

#include "util/cpu_clones.hpp"

#include <algorithm>
#include <array>
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
    std::array<int, 64> taken{};  // per class; classes <= candidates <= 64
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

// Steps a largest_clique search may take before it answers with its cap.
constexpr int kCliqueSteps = 64;

struct CliqueSearch {
    const std::vector<std::uint64_t>& adjacency;
    int cap;
    int best = 0;
    int steps = 0;

    PEERGATE_WITH_POPCNT void grow(std::uint64_t cand, int size) {
        best = std::max(best, size);
        while (best < cap && size + std::popcount(cand) > best && ++steps <= kCliqueSteps) {
            const int v = std::countr_zero(cand);
            cand &= cand - 1;
            grow(cand & at(adjacency, v), size + 1);
        }
    }
};

// A group of even K holds an even number of odd pieces (a class's members in one group),
// each from a different class. When every member must be seated and each class is cut into
// its fewest pieces, a class whose fewest pieces cannot all be even puts an odd piece in
// some group, which needs another class's odd piece beside it. If no other class can give
// one without cutting one piece more (an even class gives odd pieces in pairs, and only
// if two odd ones and the rest fit its cap), at least one piece more is needed. A Grace node
// whose two GPUs share a degraded link, alone, costs two splits, not one.
int odd_piece_extra(const std::vector<int>& members,
                    const std::vector<int>& largest,
                    int k,
                    int m) {
    if (k % 2 != 0 || std::accumulate(members.begin(), members.end(), 0) != m * k) {
        return 0;
    }
    int forced = 0;
    for (std::size_t c = 0; c < members.size(); ++c) {
        const int size = members[c];
        const int cap = std::max(1, std::min(largest[c], k));
        const int fewest = (size + cap - 1) / cap;
        const int even_cap = cap - cap % 2;
        const int odd_cap = cap - 1 + cap % 2;
        if (size % 2 != 0 || fewest * even_cap < size) {
            ++forced;
        } else if (fewest >= 2 && odd_cap >= 1 && 2 * odd_cap + (fewest - 2) * cap >= size) {
            return 0;  // odd pieces at no cost
        }
    }
    return forced == 1 ? 1 : 0;
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

PEERGATE_WITH_POPCNT int largest_clique(const std::vector<std::uint64_t>& adjacency,
                                        std::uint64_t within,
                                        int cap) {
    cap = std::min(cap, std::popcount(within));
    if (cap <= 1) {
        return cap;
    }
    CliqueSearch search{adjacency, cap};
    search.grow(within, 0);
    return search.steps > kCliqueSteps ? cap : search.best;
}

PEERGATE_WITH_POPCNT int classes_to_add(const ClassSeats& seats,
                                        std::uint64_t classes,
                                        std::uint64_t cand,
                                        int missing,
                                        std::vector<int>& offers) {
    std::uint64_t own = 0;
    for (std::uint64_t c = classes; c != 0; c &= c - 1) {
        own |= at(seats.members, std::countr_zero(c));
    }
    const int short_by =
        missing - (seats.own_cliques ? largest_clique(seats.adjacency, cand & own, missing)
                                     : std::popcount(cand & own));
    if (short_by <= 0) {
        return 0;
    }
    offers.clear();
    for (std::size_t c = 0; c < seats.members.size(); ++c) {
        const bool counted = ((classes >> c) & 1U) != 0;
        const std::uint64_t offered = counted ? 0 : cand & seats.members[c];
        offers.push_back(seats.members.size() > 2
                             ? largest_clique(seats.adjacency, offered, short_by)
                             : std::popcount(offered));
    }
    return classes_to_seat(offers, short_by);
}

int fewest_spans(const std::vector<int>& members,
                 const std::vector<int>& largest,
                 int k,
                 int m,
                 std::vector<int>& pieces) {
    if (m == 0) {
        return 0;
    }
    // One group: one piece per class, as large as the class's largest clique allows.
    pieces.clear();
    for (std::size_t c = 0; c < members.size(); ++c) {
        pieces.push_back(std::min({members[c], largest[c], k}));
    }
    const int per_group = classes_to_seat(pieces, k);
    // All m together: a class is cut in pieces of that size and a remainder.
    pieces.clear();
    for (std::size_t c = 0; c < members.size(); ++c) {
        const int piece = std::max(1, std::min(largest[c], k));
        for (int left = members[c]; left > 0; left -= piece) {
            pieces.push_back(std::min(left, piece));
        }
    }
    return std::max(m * per_group,
                    classes_to_seat(pieces, m * k) + odd_piece_extra(members, largest, k, m));
}

void spans_after_open_group(const std::vector<int>& members,
                            const std::vector<int>& pure,
                            const std::vector<int>& largest,
                            int k,
                            int m,
                            SpanScratch& scratch,
                            SpansAfterOpen& after) {
    for (int first = 0; first <= k; ++first) {
        const std::array<int, 2> taken{first, k - first};
        for (std::size_t c = 0; c < 2; ++c) {
            const int left = std::max(0, members[c] - taken[c]);
            scratch.members[c] = left;
            scratch.pure[c] = std::min(pure[c], left / k);
            scratch.largest[c] = std::min(largest[c], left);
        }
        at(after, first) =
            m == 0 ? 0
                   : std::max(m + fewest_mixed(scratch.members, scratch.pure, k, m),
                              fewest_spans(scratch.members, scratch.largest, k, m, scratch.pieces));
    }
}

int fewest_spans_around_open_group(const SpansAfterOpen& after,
                                   std::array<int, 2> open,
                                   std::array<int, 2> cand,
                                   int k) {
    const int missing = k - open[0] - open[1];
    int fewest = 1 << 30;
    for (int more = std::max(0, missing - cand[1]); more <= std::min(missing, cand[0]); ++more) {
        const int first = open[0] + more;
        const int second = k - first;
        fewest = std::min(fewest, (first > 0 ? 1 : 0) + (second > 0 ? 1 : 0) + at(after, first));
    }
    return fewest;
}

PEERGATE_WITH_POPCNT int fewest_spans_around_open_group(const SpansAfterOpen& after,
                                                        const std::vector<std::uint64_t>& classes,
                                                        std::uint64_t members,
                                                        std::uint64_t cand,
                                                        int k) {
    std::array<int, 2> open{};
    std::array<int, 2> offered{};
    for (std::size_t c = 0; c < 2; ++c) {
        open[c] = std::popcount(members & classes[c]);
        offered[c] = std::popcount(cand & classes[c]);
    }
    return fewest_spans_around_open_group(after, open, offered, k);
}

}  // namespace peergate::policy::placement
