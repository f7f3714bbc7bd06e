// SPDX-License-Identifier: Apache-2.0
// The simulated driver's device memory. An allocation that holds one simple thing
// throughout (one 32-bit word everywhere, zeros at first, or the probe's pattern for one
// seed) is kept as that description rather than as bytes. memset, the fill kernel, a peer
// copy and the verify kernel on whole allocations then cost nothing, and a simulated probe
// of eight GPUs neither pushes tens of GB through the host's memory nor maps 7 GiB of it.
// Anything else (part of an allocation, a copy with a fault, a copy to or from the host)
// writes the bytes out first and works on them.
#pragma once

#include "engine/pattern.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>

namespace peergate::sim::cuda {

struct FreeDeleter {
    void operator()(std::uint8_t* p) const { std::free(p); }  // NOLINT: calloc'd storage
};

using Storage = std::unique_ptr<std::uint8_t[], FreeDeleter>;  // NOLINT: raw storage

// What a whole allocation holds, when it is that simple.
struct Description {
    enum class Kind { word, pattern };
    Kind kind = Kind::word;
    std::uint32_t value = 0;  // the word, or the pattern's seed

    friend bool operator==(const Description&, const Description&) = default;
};

// Device memory: an allocation at an opaque address, never a host address. cudaMalloc
// leaves memory uninitialised; here it starts as zeros, one of the contents it may have.
struct Allocation {
    int device = 0;
    std::size_t bytes = 0;
    Storage data;                                            // the bytes, once needed
    std::optional<Description> description = Description{};  // nullopt: `data` holds it
};

// [offset, offset + bytes) of one allocation; false when the address is not device memory.
struct DeviceRange {
    Allocation* allocation = nullptr;
    std::size_t offset = 0;
    std::size_t bytes = 0;

    bool whole() const { return offset == 0 && bytes == allocation->bytes; }

    explicit operator bool() const { return allocation != nullptr; }
};

// The range's bytes, written out first where the allocation was a description; from then on
// the allocation is bytes. Aborts when the host has no memory left for them.
std::uint8_t* range_bytes(const DeviceRange& range);

// cuMemsetD32 over the range (4 bytes a word).
void set_words(const DeviceRange& range, std::uint32_t value);

// The fill kernel: element i of the range becomes pattern_value(seed, i).
void fill_pattern(const DeviceRange& range, std::uint32_t seed);

// The verify kernel's counts for the range against the pattern for `seed`.
engine::VerifyCounts verify_pattern(const DeviceRange& range, std::uint32_t seed);

// A device-to-device copy without a fault, from `from` to `to` (the same length).
void copy_device(const DeviceRange& to, const DeviceRange& from);

// Host memory to device memory, and back.
void copy_from_host(const DeviceRange& to, const void* src);
void copy_to_host(void* dst, const DeviceRange& from);

}  // namespace peergate::sim::cuda
