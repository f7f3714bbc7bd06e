// SPDX-License-Identifier: Apache-2.0
#include "engine/pattern.hpp"

namespace peergate::engine {

namespace {

// 64-bit mix (splitmix64's finaliser) folded to 32 bits.
std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30U;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27U;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 31U;
    return x;
}

}  // namespace

std::uint32_t pattern_seed(int src, int dst, std::uint64_t size_bytes, int repeat,
                           model::ProbeMode mode) {
    std::uint64_t h = mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) + 1);
    h = mix(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dst)) << 20U));
    h = mix(h ^ size_bytes);
    h = mix(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(repeat)) << 40U));
    h = mix(h ^ (static_cast<std::uint64_t>(mode) << 56U));
    return static_cast<std::uint32_t>(h ^ (h >> 32U));
}

void fill_pattern(std::span<std::uint32_t> out, std::uint32_t seed) {
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = pattern_value(seed, static_cast<std::uint32_t>(i));
    }
}

VerifyCounts verify_pattern(std::span<const std::uint32_t> data, std::uint32_t seed) {
    VerifyCounts counts;
    for (std::size_t i = 0; i < data.size(); ++i) {
        const std::uint32_t value = data[i];
        if (value == pattern_value(seed, static_cast<std::uint32_t>(i))) {
            continue;
        }
        if (value == kSentinelBits) {
            ++counts.dropped;
        } else {
            ++counts.wrong;
        }
        if (!counts.first_bad_element) {
            counts.first_bad_element = i;
        }
    }
    return counts;
}

}  // namespace peergate::engine
