// SPDX-License-Identifier: Apache-2.0
// Candidate sets as bits, as the exact searches keep them (n <= 64).
#pragma once

#include <bit>
#include <cstdint>

namespace peergate::policy::placement {

using Mask = std::uint64_t;

inline Mask bit(int v) {
    return Mask{1} << v;
}

inline int lowest(Mask m) {
    return std::countr_zero(m);
}

inline int count(Mask m) {
    return std::popcount(m);
}

}  // namespace peergate::policy::placement
