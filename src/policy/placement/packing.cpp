// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/packing.hpp"

#include "policy/placement/bits.hpp"
#include "policy/placement/bounds.hpp"
#include "policy/placement/truss.hpp"
#include "util/cpu_clones.hpp"

#include <bit>

namespace peergate::policy::placement {

namespace {

constexpr std::uint64_t kEffortPerCall = 20'000;
constexpr std::size_t kKnownLimit = std::size_t{1} << 16;

// One key per (set, groups): sets are 64-bit masks and groups fit in 6 bits of a mix.
std::uint64_t key_of(std::uint64_t within, int groups) {
    return (within * std::uint64_t{0x9E3779B97F4A7C15U}) ^ static_cast<std::uint64_t>(groups);
}

}  // namespace

void GroupPacker::prepare(const std::vector<std::uint64_t>& adjacency, int k) {
    if (known_for_ != adjacency || known_k_ != k || known_.size() > kKnownLimit) {
        known_.clear();
        known_for_ = adjacency;
        known_k_ = k;
    }
    adjacency_ = &adjacency;
    k_ = k;
    effort_ = 0;
}

int GroupPacker::most(const std::vector<std::uint64_t>& adjacency, std::uint64_t within, int k) {
    prepare(adjacency, k);
    int groups = truss_groups(adjacency, within, k);
    while (groups > 0 && !fits(within, groups)) {
        --groups;
    }
    spent_ += effort_ + 1;
    return groups;
}

PEERGATE_WITH_POPCNT bool GroupPacker::fits(std::uint64_t within, int groups) {
    if (groups == 0) {
        return true;
    }
    if (std::popcount(within) < groups * k_) {
        return false;
    }
    if (++effort_ > kEffortPerCall) {
        return true;  // unproven: the optimistic answer keeps the bound valid
    }
    const std::uint64_t key = key_of(within, groups);
    if (const auto it = known_.find(key); it != known_.end()) {
        return it->second;
    }
    // The smallest member either leads a group or is in none.
    const int v = std::countr_zero(within);
    const std::uint64_t rest = within & ~bit(v);
    const bool found =
        completes(
            rest, bit(v), (*adjacency_)[static_cast<std::size_t>(v)] & rest, k_ - 1, groups) ||
        fits(rest, groups);
    known_.emplace(key, found);
    return found;
}

// Extends `group` by `missing` more of `candidates` (each joined in ascending order), then
// asks whether the others left in `within` hold groups - 1 more.
PEERGATE_WITH_POPCNT bool GroupPacker::completes(
    std::uint64_t within, std::uint64_t group, std::uint64_t candidates, int missing, int groups) {
    if (missing == 0) {
        return fits(within & ~group, groups - 1);
    }
    for (std::uint64_t left = candidates; std::popcount(left) >= missing; left &= left - 1) {
        if (effort_ > kEffortPerCall) {
            return true;
        }
        ++effort_;
        const int u = std::countr_zero(left);
        const std::uint64_t next = (left & ~bit(u)) & (*adjacency_)[static_cast<std::size_t>(u)];
        if (completes(within, group | bit(u), next, missing - 1, groups)) {
            return true;
        }
    }
    return false;
}

}  // namespace peergate::policy::placement
