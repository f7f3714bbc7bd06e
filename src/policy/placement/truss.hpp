// SPDX-License-Identifier: Apache-2.0
// How many disjoint groups of K a set of candidates can hold, by the pairs they share: a
// K-truss peel (a group of K is a K-clique, so each member has K-1 partners in it and each
// pair K-2 common ones), then whole groups per connected piece.
#pragma once

#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// At most how many disjoint groups of K fit among `within` (n <= 64) using only the pairs
// in `adjacency`: drop pairs with fewer than K-2 common partners and members with fewer
// than K-1 partners until none is left to drop, then floor(size / K) per component.
// `steps`, when given, gets the pairs looked at added (a search charges them).
int truss_groups(const std::vector<std::uint64_t>& adjacency,
                 std::uint64_t within,
                 int k,
                 std::uint64_t* steps = nullptr);

}  // namespace peergate::policy::placement
