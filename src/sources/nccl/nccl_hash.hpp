// SPDX-License-Identifier: Apache-2.0
// Hash helpers shared by the NCCL log parser's tables.
#pragma once

#include <cstdint>

namespace peergate::sources::nccl {

// A 64-bit finaliser (MurmurHash3's fmix64): every input bit moves every output bit, so
// keys that differ only in a small field (a channel) still spread over the buckets.
inline std::uint64_t fmix64(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

inline std::uint64_t pack(int high, int low) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(high)) << 32) |
           static_cast<std::uint32_t>(low);
}

}  // namespace peergate::sources::nccl
