// SPDX-License-Identifier: Apache-2.0
// Lower bounds on (4), the NUMA nodes groups span, from how many members each NUMA class
// offers: what both searches add to their bounds where NUMA nodes decide.
#pragma once

#include "policy/placement/problem.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// Per NUMA class, its candidates as bits (n <= 64).
std::vector<std::uint64_t> class_masks(const Problem& problem);

// The fewest classes whose offers (members each can give) seat `need` members, largest
// offers first; all of them when even that falls short. Sorts `offers`.
int classes_to_seat(std::vector<int>& offers, int need);

// The most members of `within` that are pairwise usable (`adjacency`), up to `cap`; the cap
// itself (never too low) where the search runs past a few dozen steps.
int largest_clique(const std::vector<std::uint64_t>& adjacency, std::uint64_t within, int cap);

// Each NUMA class's candidates (class_masks) and the pairs usable at the threshold.
struct ClassSeats {
    const std::vector<std::uint64_t>& members;
    const std::vector<std::uint64_t>& adjacency;
    bool own_cliques = true;  // false: count the group's own classes' candidates instead
};

// How many more classes a group already spanning `classes` must take in to seat `missing`
// more members drawn from `cand`: each class seats at most a clique of its candidates, so
// none while the group's own classes can seat them all. (With two classes the other one's
// candidates are only counted: whatever they seat, it is one class more.)
int classes_to_add(const ClassSeats& seats,
                   std::uint64_t classes,
                   std::uint64_t cand,
                   int missing,
                   std::vector<int>& offers);

// The fewest NUMA classes m groups of K span in all, class c offering members[c] of which
// at most largest[c] are pairwise usable: a group counts a class once and takes at most
// that many of its members, so each group needs as many classes as the largest pieces take
// to reach K, and all m together need as many (group, class) pairs as seat m*K members
// when each class is cut into pieces of that size and a remainder. Nodes with one or two
// GPUs each (a Grace per two GPUs) make this the binding count; a NUMA node's pair whose
// link is degraded below the threshold must be split, and with K even and every member to
// be seated, one such node alone costs a second split (parity of the odd pieces).
int fewest_spans(const std::vector<int>& members,
                 const std::vector<int>& largest,
                 int k,
                 int m,
                 std::vector<int>& pieces);

// The fewest of m groups that must span two or more classes, given each class's usable
// members and the most groups it holds alone (`pure`): a group that mixes classes takes
// at most K-1 members of any one, so the pure groups must leave enough members elsewhere.
int fewest_mixed(const std::vector<int>& members, const std::vector<int>& pure, int k, int m);

// Buffers for the bound below, so that the search does not allocate at every node.
struct SpanScratch {
    std::vector<int> members = std::vector<int>(2);
    std::vector<int> pure = std::vector<int>(2);
    std::vector<int> largest = std::vector<int>(2);
    std::vector<int> pieces;
};

// With two classes (two sockets), per count f (0..K) of the first class in a group of K
// about to be filled: the fewest classes the m groups after it span, from the members it
// leaves (fewest_mixed, fewest_spans). Worked out once where the group is opened, from
// each class's usable members, the most groups it holds alone and its largest clique.
using SpansAfterOpen = std::array<int, 65>;
void spans_after_open_group(const std::vector<int>& members,
                            const std::vector<int>& pure,
                            const std::vector<int>& largest,
                            int k,
                            int m,
                            SpanScratch& scratch,
                            SpansAfterOpen& after);

// The fewest classes a group being filled and the m groups after it span together:
// however the group's members split between the two classes (`open` so far, up to `cand`
// more of each), the others take what it leaves; the least over every split the
// candidates allow. Apart, the two bounds cannot see that a group of 8 that takes two of a
// class of 17 leaves the others 15, which no pure groups of 8 can seat.
int fewest_spans_around_open_group(const SpansAfterOpen& after,
                                   std::array<int, 2> open,
                                   std::array<int, 2> cand,
                                   int k);

// The same from the group's members and candidates as bits (`classes`: class_masks).
int fewest_spans_around_open_group(const SpansAfterOpen& after,
                                   const std::vector<std::uint64_t>& classes,
                                   std::uint64_t members,
                                   std::uint64_t cand,
                                   int k);

}  // namespace peergate::policy::placement
