// SPDX-License-Identifier: Apache-2.0
#include "engine/pattern.hpp"

#include "util/cpu_clones.hpp"

#include <algorithm>
#include <bit>

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

std::uint32_t pattern_seed(int src,
                           int dst,
                           std::uint64_t size_bytes,
                           int repeat,
                           model::ProbeMode mode,
                           model::ProbePath path) {
    std::uint64_t h = mix(static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) + 1);
    h = mix(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dst)) << 20U));
    h = mix(h ^ size_bytes);
    // Rotated, not shifted: a soak's repeat numbers pass 2^24, and every bit must count.
    h = mix(h ^ std::rotl(static_cast<std::uint64_t>(static_cast<std::uint32_t>(repeat)), 40));
    h = mix(h ^ (static_cast<std::uint64_t>(mode) << 56U));
    if (path != model::ProbePath::ce) {
        h = mix(h ^ (static_cast<std::uint64_t>(path) << 60U));
    }
    return static_cast<std::uint32_t>(h ^ (h >> 32U));
}

void fill_pattern(std::span<std::uint32_t> out, std::uint32_t seed) {
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = pattern_value(seed, static_cast<std::uint32_t>(i));
    }
}

namespace {

// Elements per block of the fast pass: small enough to stay in L1 for the slow pass.
constexpr std::size_t kBlock = 4096;
constexpr std::uint32_t kStep = kPatternStep;

// The multiplicative inverse of kStep mod 2^32 (Newton's iteration doubles the correct bits).
constexpr std::uint32_t inverse(std::uint32_t a) {
    std::uint32_t x = a;  // correct to 3 bits for odd a
    for (int i = 0; i < 5; ++i) {
        x *= 2U - a * x;
    }
    return x;
}

static_assert(inverse(kStep) * kStep == 1U);

// The one index whose affine value is the sentinel (and so holds the stand-in).
std::uint32_t stand_in_index(std::uint32_t seed) {
    return (kSentinelBits - seed) * inverse(kStep);
}

// True when every element of data[begin, end) matches: branch-free so it vectorises and
// the probe's compare keeps up with the copy that brought the bytes back. It compares with
// the plain affine value; the block holding the one element per seed whose value is the
// sentinel's stand-in goes to the exact pass instead. AVX2 where the CPU has it (chosen at load
// time).
PEERGATE_WITH_AVX2 bool block_intact(const std::uint32_t* data,
                                     std::uint32_t seed,
                                     std::uint32_t first_index,
                                     std::size_t begin,
                                     std::size_t end) {
    std::uint32_t differs = 0;
    std::uint32_t expected = (first_index + static_cast<std::uint32_t>(begin)) * kStep + seed;
    for (std::size_t i = begin; i < end; ++i) {
        differs |= data[i] ^ expected;
        expected += kStep;
    }
    return differs == 0;
}

void count_block(std::span<const std::uint32_t> data,
                 std::uint32_t seed,
                 std::uint64_t first_index,
                 std::size_t begin,
                 std::size_t end,
                 VerifyCounts& counts) {
    for (std::size_t i = begin; i < end; ++i) {
        const std::uint32_t value = data[i];
        if (value == pattern_value(seed, static_cast<std::uint32_t>(first_index + i))) {
            continue;
        }
        if (value == kSentinelBits) {
            ++counts.dropped;
        } else {
            ++counts.wrong;
        }
        if (!counts.first_bad_element) {
            counts.first_bad_element = first_index + i;
        }
    }
}

}  // namespace

VerifyCounts verify_pattern(std::span<const std::uint32_t> data,
                            std::uint32_t seed,
                            std::uint64_t first_index) {
    VerifyCounts counts;
    const auto first = static_cast<std::uint32_t>(first_index);
    for (std::size_t begin = 0; begin < data.size(); begin += kBlock) {
        const std::size_t end = std::min(data.size(), begin + kBlock);
        const std::uint32_t special = stand_in_index(seed) - first;
        const bool holds_stand_in = special >= begin && special < end;
        if (holds_stand_in || !block_intact(data.data(), seed, first, begin, end)) {
            count_block(data, seed, first_index, begin, end, counts);
        }
    }
    return counts;
}

void accumulate(VerifyCounts& total, const VerifyCounts& part) {
    total.dropped += part.dropped;
    total.wrong += part.wrong;
    if (!total.first_bad_element) {
        total.first_bad_element = part.first_bad_element;
    }
}

}  // namespace peergate::engine
