// SPDX-License-Identifier: Apache-2.0
// Hash helpers shared by the NCCL log parser's tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

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

// Hashes std::string keys and std::string_view lookups alike, so a table keyed by text
// is searched with a view of the line and allocates only when it adds a key.
struct TransparentHash {
    using is_transparent = void;

    std::size_t operator()(std::string_view text) const {
        return std::hash<std::string_view>{}(text);
    }
};

}  // namespace peergate::sources::nccl
