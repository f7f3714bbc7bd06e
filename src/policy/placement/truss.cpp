// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/truss.hpp"

#include "policy/placement/problem.hpp"
#include "util/cpu_clones.hpp"

#include <array>
#include <bit>

namespace peergate::policy::placement {

namespace {

using Rows = std::array<std::uint64_t, 64>;

// Drops member `a`: every pair it is in.
PEERGATE_WITH_POPCNT void drop_member(Rows& adjacency, int a) {
    for (std::uint64_t partners = at(adjacency, a); partners != 0; partners &= partners - 1) {
        at(adjacency, std::countr_zero(partners)) &= ~(std::uint64_t{1} << a);
    }
    at(adjacency, a) = 0;
}

// Drops the pairs of `a` with a higher member that share fewer than K-2 partners; whether
// any went. `looked` counts the pairs checked.
PEERGATE_WITH_POPCNT bool drop_weak_pairs(Rows& adjacency, int a, int k, std::uint64_t& looked) {
    bool dropped = false;
    for (std::uint64_t partners = at(adjacency, a) & ~((std::uint64_t{2} << a) - 1); partners != 0;
         partners &= partners - 1) {
        ++looked;
        const int b = std::countr_zero(partners);
        if (std::popcount(at(adjacency, a) & at(adjacency, b)) < k - 2) {
            at(adjacency, a) &= ~(std::uint64_t{1} << b);
            at(adjacency, b) &= ~(std::uint64_t{1} << a);
            dropped = true;
        }
    }
    return dropped;
}

// floor(size / K) summed over the components of `within` that `adjacency` joins.
PEERGATE_WITH_POPCNT int groups_by_component(const Rows& adjacency, std::uint64_t within, int k) {
    int groups = 0;
    for (std::uint64_t unseen = within; unseen != 0;) {
        std::uint64_t component = unseen & (~unseen + 1);
        for (std::uint64_t grown = 0; grown != component;) {
            grown = component;
            for (std::uint64_t m = grown; m != 0; m &= m - 1) {
                component |= at(adjacency, std::countr_zero(m));
            }
        }
        unseen &= ~component;
        groups += std::popcount(component) / k;
    }
    return groups;
}

}  // namespace

PEERGATE_WITH_POPCNT int truss_groups(const std::vector<std::uint64_t>& pairs,
                                      std::uint64_t within,
                                      int k,
                                      std::uint64_t* steps) {
    Rows adjacency{};  // within's rows, on the stack: no allocation per call
    for (std::size_t v = 0; v < pairs.size() && v < adjacency.size(); ++v) {
        adjacency[v] = pairs[v] & within;
    }
    // Dropping pairs only lowers degrees and common partners, so the order of the drops
    // does not change what is left: each pass checks a member's degree once and each pair
    // once, from its lower end.
    std::uint64_t looked = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (std::uint64_t rest = within; rest != 0; rest &= rest - 1) {
            const int a = std::countr_zero(rest);
            if (at(adjacency, a) == 0) {
                continue;
            }
            ++looked;
            if (std::popcount(at(adjacency, a)) < k - 1) {
                drop_member(adjacency, a);
                changed = true;
            } else if (drop_weak_pairs(adjacency, a, k, looked)) {
                changed = true;
            }
        }
    }
    if (steps != nullptr) {
        *steps += looked;
    }
    return groups_by_component(adjacency, within, k);
}

}  // namespace peergate::policy::placement
