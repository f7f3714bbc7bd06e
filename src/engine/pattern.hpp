// SPDX-License-Identifier: Apache-2.0
// The bytes the probe writes: a sentinel in every destination and a source pattern that
// differs per pair, size, repeat and mode, so neither a copy that never landed nor stale
// data from an earlier cell can pass. The device kernels compute the same function.
#pragma once

#include "model/probe_result.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace peergate::engine {

// float32 -7.0: a destination element still holding it was never written (dropped).
inline constexpr std::uint32_t kSentinelBits = 0xC0E00000U;
// What a pattern element becomes if the hash happens to produce the sentinel (float 1.0).
inline constexpr std::uint32_t kSentinelStandIn = 0x3F800000U;

// Element `index` of the pattern for `seed`: index * 0x9E3779B1 + seed (mod 2^32). The
// multiplier is odd, so within a buffer every element differs (a copy that lands at the
// wrong offset is caught), and for a fixed index it is a bijection of the seed (stale data
// of another cell differs at every element). It never equals the sentinel. Affine on
// purpose: the host compare vectorises and keeps up with the copy that brought the bytes
// back (docs/PERFORMANCE.md "## probe"), and the device kernels stay a few instructions.
inline constexpr std::uint32_t kPatternStep = 0x9E3779B1U;

constexpr std::uint32_t pattern_value(std::uint32_t seed, std::uint32_t index) {
    const std::uint32_t x = index * kPatternStep + seed;
    return x == kSentinelBits ? kSentinelStandIn : x;
}

// The pattern for `seed` from element `first` on is the pattern for this seed from element
// 0: (first + i) * step + seed = i * step + (first * step + seed), and the sentinel's
// stand-in depends only on that sum.
constexpr std::uint32_t shifted_pattern_seed(std::uint32_t seed, std::uint64_t first) {
    return static_cast<std::uint32_t>(first) * kPatternStep + seed;
}

// The seed of one repeat of one cell. The path is mixed in too (a ce cell's seed is what it
// was before paths existed), so a path that moved nothing cannot pass on another path's bytes.
std::uint32_t pattern_seed(int src,
                           int dst,
                           std::uint64_t size_bytes,
                           int repeat,
                           model::ProbeMode mode,
                           model::ProbePath path = model::ProbePath::ce);

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

// Compares `data`, elements first_index.. of a buffer, with the pattern for `seed` on the
// CPU; first_bad_element counts from the start of the buffer.
VerifyCounts verify_pattern(std::span<const std::uint32_t> data,
                            std::uint32_t seed,
                            std::uint64_t first_index = 0);

// Adds the counts of a later part of the same buffer.
void accumulate(VerifyCounts& total, const VerifyCounts& part);

}  // namespace peergate::engine
