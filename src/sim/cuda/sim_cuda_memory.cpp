// SPDX-License-Identifier: Apache-2.0
#include "sim/cuda/sim_cuda_memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>

namespace peergate::sim::cuda {

namespace {

// 32-bit words of storage: calloc'd blocks are aligned for them, and every range the
// kernels and memset reach starts 4-byte aligned within one (the launch checks).
std::span<std::uint32_t> words(std::uint8_t* bytes, std::size_t count) {
    return {reinterpret_cast<std::uint32_t*>(bytes), count};  // NOLINT: aligned C storage
}

// `value` into every 4-byte word of [to, to + bytes), by doubling copies (memcpy's speed
// rather than a word at a time); a tail shorter than a word gets value's first bytes.
void write_words(std::uint8_t* to, std::uint32_t value, std::size_t bytes) {
    const std::size_t total = bytes / 4U * 4U;
    if (total > 0) {
        std::memcpy(to, &value, 4U);
    }
    for (std::size_t done = 4U; done < total;) {
        const std::size_t chunk = std::min(done, total - done);
        std::memcpy(to + done, to, chunk);
        done += chunk;
    }
    std::memcpy(to + total, &value, bytes - total);
}

void write_description(std::uint8_t* to, const Description& d, std::size_t bytes) {
    if (d.kind == Description::Kind::word) {
        write_words(to, d.value, bytes);
    } else {
        engine::fill_pattern(words(to, bytes / 4U), d.value);
    }
}

// The allocation's bytes, written out from its description if it had one.
std::uint8_t* bytes_of(Allocation& a) {
    if (!a.data) {
        a.data = Storage(static_cast<std::uint8_t*>(std::calloc(a.bytes, 1)));  // NOLINT
        if (!a.data) {
            std::fprintf(stderr, "peergate sim: no host memory for %zu bytes\n", a.bytes);
            std::abort();
        }
        if (a.description == Description{}) {
            a.description.reset();  // calloc gave the zeros it described
        }
    }
    if (a.description) {
        write_description(a.data.get(), *a.description, a.bytes);
        a.description.reset();
    }
    return a.data.get();
}

// memcmp against a block of zeros: libc's vector compare reads memory at about twice the
// speed of copying it, and stops at the first byte that is not zero.
bool all_zero(const void* data, std::size_t bytes) {
    static constexpr std::size_t kBlock = 65536;
    static const std::uint8_t zeros[kBlock] = {};
    const auto* p = static_cast<const std::uint8_t*>(data);
    for (std::size_t done = 0; done < bytes; done += kBlock) {
        if (std::memcmp(p + done, zeros, std::min(kBlock, bytes - done)) != 0) {
            return false;
        }
    }
    return true;
}

// The range's bytes for a write that replaces all of them: a whole allocation's
// description is dropped rather than written out.
std::uint8_t* bytes_to_overwrite(const DeviceRange& range) {
    if (range.whole()) {
        range.allocation->description.reset();
        if (!range.allocation->data) {
            range.allocation->description = Description{};  // bytes_of: calloc, nothing more
        }
    }
    return range_bytes(range);
}

}  // namespace

std::uint8_t* range_bytes(const DeviceRange& range) {
    return bytes_of(*range.allocation) + range.offset;
}

void set_words(const DeviceRange& range, std::uint32_t value) {
    if (range.whole() && range.bytes % 4U == 0) {
        range.allocation->description = Description{Description::Kind::word, value};
        return;
    }
    write_words(range_bytes(range), value, range.bytes / 4U * 4U);
}

void fill_pattern(const DeviceRange& range, std::uint32_t seed) {
    if (range.whole() && range.bytes % 4U == 0) {
        range.allocation->description = Description{Description::Kind::pattern, seed};
        return;
    }
    engine::fill_pattern(words(range_bytes(range), range.bytes / 4U), seed);
}

engine::VerifyCounts verify_pattern(const DeviceRange& range, std::uint32_t seed) {
    const std::size_t count = range.bytes / 4U;
    const auto& d = range.allocation->description;
    if (range.whole() && d && count > 0) {
        if (*d == Description{Description::Kind::pattern, seed}) {
            return {};
        }
        if (*d == Description{Description::Kind::word, engine::kSentinelBits}) {
            // The pattern never takes the sentinel's value: every element was dropped.
            return {.dropped = count, .wrong = 0, .first_bad_element = 0};
        }
    }
    return engine::verify_pattern(words(range_bytes(range), count), seed);
}

void copy_device(const DeviceRange& to, const DeviceRange& from) {
    const auto& d = from.allocation->description;
    if (to.whole() && from.whole() && d) {
        to.allocation->description = d;
        return;
    }
    const std::uint8_t* source = range_bytes(from);
    std::memmove(bytes_to_overwrite(to), source, to.bytes);
}

void copy_from_host(const DeviceRange& to, const void* src) {
    if (to.whole() && all_zero(src, to.bytes)) {
        to.allocation->description = Description{};  // a simulated bench's staged copies
        return;
    }
    std::memcpy(bytes_to_overwrite(to), src, to.bytes);
}

void copy_to_host(void* dst, const DeviceRange& from) {
    const auto& d = from.allocation->description;
    auto* to = static_cast<std::uint8_t*>(dst);
    if (d && d->kind == Description::Kind::word && from.offset % 4U == 0) {
        // A bench's staging buffer already holds the zeros it gets again: reading them is
        // cheaper than writing them.
        if (d->value != 0 || !all_zero(dst, from.bytes)) {
            write_words(to, d->value, from.bytes);
        }
        return;
    }
    const bool aligned = reinterpret_cast<std::uintptr_t>(dst) % alignof(std::uint32_t) == 0;
    if (d && from.offset % 4U == 0 && from.bytes % 4U == 0 && aligned) {
        // Host-mode verification reads a pattern back a chunk at a time.
        engine::fill_pattern(words(to, from.bytes / 4U),
                             engine::shifted_pattern_seed(d->value, from.offset / 4U));
        return;
    }
    std::memcpy(dst, range_bytes(from), from.bytes);
}

}  // namespace peergate::sim::cuda
