// SPDX-License-Identifier: Apache-2.0
// Lower bounds on (4), the NUMA nodes groups span, from how many members each NUMA class
// offers: what both searches add to their bounds where NUMA nodes decide.
#pragma once

#include "policy/placement_problem.hpp"

#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// Per NUMA class, its candidates as bits (n <= 64).
std::vector<std::uint64_t> class_masks(const Problem& problem);

// The fewest classes whose offers (members each can give) seat `need` members, largest
// offers first; all of them when even that falls short. Sorts `offers`.
int classes_to_seat(std::vector<int>& offers, int need);

// How many more classes a group already spanning `classes` must take in to seat `missing`
// more members drawn from `cand`: none while its own classes' candidates suffice.
int classes_to_add(const std::vector<std::uint64_t>& class_members,
                   std::uint64_t classes,
                   std::uint64_t cand,
                   int missing,
                   std::vector<int>& offers);

// The fewest NUMA classes m groups of K span in all, class c offering members[c]: a group
// counts a class once and takes at most K of its members, so each group needs as many
// classes as the largest offers take to reach K, and all m together need as many (group,
// class) pairs as seat m*K members when each class is cut in pieces of K and a remainder.
// Nodes with one or two GPUs each (a Grace per two GPUs) make this the binding count.
int fewest_spans(const std::vector<int>& members, int k, int m, std::vector<int>& pieces);

// The fewest of m groups that must span two or more classes, given each class's usable
// members and the most groups it holds alone (`pure`): a group that mixes classes takes
// at most K-1 members of any one, so the pure groups must leave enough members elsewhere.
int fewest_mixed(const std::vector<int>& members, const std::vector<int>& pure, int k, int m);

}  // namespace peergate::policy::placement
