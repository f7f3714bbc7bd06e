// SPDX-License-Identifier: Apache-2.0
// The bytes the probe writes: a sentinel in every destination and a source pattern that
// differs per pair, size, repeat and mode, so neither a copy that never landed nor stale
// data from an earlier cell can pass. The device kernels compute the same function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "model/probe_result.hpp"

namespace peergate::engine {

// float32 -7.0: a destination element still holding it was never written (dropped).
inline constexpr std::uint32_t kSentinelBits = 0xC0E00000U;
// What a pattern element becomes if the hash happens to produce the sentinel (float 1.0).
inline constexpr std::uint32_t kSentinelStandIn = 0x3F800000U;

// Element `index` of the pattern for `seed`. For a fixed index it is a bijection of the
// seed (multiply-add, xor-shift, odd multiply, xor-shift), so two seeds differ at every
// element; it never equals the sentinel.
constexpr std::uint32_t pattern_value(std::uint32_t seed, std::uint32_t index) {
    std::uint32_t x = index * 0x9E3779B1U + seed;
    x ^= x >> 16U;
    x *= 0x85EBCA6BU;
    x ^= x >> 13U;
    return x == kSentinelBits ? kSentinelStandIn : x;
}

// The seed of one repeat of one cell.
std::uint32_t pattern_seed(int src, int dst, std::uint64_t size_bytes, int repeat,
                           model::ProbeMode mode);

// Writes the pattern for `seed` into `out` (elements 0..out.size()-1).
void fill_pattern(std::span<std::uint32_t> out, std::uint32_t seed);

// What a comparison found in one destination.
struct VerifyCounts {
    std::uint64_t dropped = 0;  // still the sentinel
    std::uint64_t wrong = 0;    // anything else that is not the pattern
    std::optional<std::uint64_t> first_bad_element;

    bool intact() const { return dropped == 0 && wrong == 0; }
    friend bool operator==(const VerifyCounts&, const VerifyCounts&) = default;
};

// Compares `data` with the pattern for `seed` on the CPU.
VerifyCounts verify_pattern(std::span<const std::uint32_t> data, std::uint32_t seed);

}  // namespace peergate::engine
