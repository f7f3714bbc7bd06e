// SPDX-License-Identifier: Apache-2.0
// A small direct-mapped cache in front of an interning table, for the texts the parser
// turns into numbers on every connection line (host names, transport details). A job has
// few of them but its lines interleave them at random, so "same as the last line" misses
// most of the time, and a hash map lookup hashes the whole text through a library call.
#pragma once

#include "sources/nccl/text_cursor.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace peergate::sources::nccl {

class RecentTexts {
public:
    // The id of `text`: from the cache, or intern(text) remembered for the next time.
    template <typename Intern>
    std::uint32_t id_of(std::string_view text, Intern&& intern) {
        if (text.size() > kMaxCachedBytes) {
            return intern(text);  // no real host or detail is this long; 256 copies could be
        }
        const Sketch sketch = sketch_of(text);
        const std::uint64_t mixed = (sketch.head * 0x9E3779B97F4A7C15ULL) ^
                                    (sketch.tail * 0xC2B2AE3D27D4EB4FULL) ^ text.size();
        Entry& entry = entries_[(mixed * 0x9E3779B97F4A7C15ULL) >> (64 - kEntryBits)];
        // Up to 16 bytes, the first and last 8 are the whole text: no compare needed.
        const bool hit = entry.size == text.size() && entry.sketch.head == sketch.head &&
                         entry.sketch.tail == sketch.tail &&
                         (text.size() <= 16 || same_text(entry.text, text));
        if (!hit) {
            entry = Entry{sketch, text.size(), std::string(text), intern(text)};
        }
        return entry.id;
    }

private:
    static constexpr unsigned kEntryBits = 8;
    static constexpr std::size_t kMaxCachedBytes = 256;

    // The first and the last 8 bytes (overlapping when shorter than 16; shorter than 8:
    // the bytes, zero-filled).
    struct Sketch {
        std::uint64_t head = 0;
        std::uint64_t tail = 0;
    };

    static Sketch sketch_of(std::string_view text) {
        Sketch sketch;
        if (text.size() >= 8) {
            std::memcpy(&sketch.head, text.data(), 8);
            std::memcpy(&sketch.tail, text.data() + text.size() - 8, 8);
        } else if (!text.empty()) {
            std::memcpy(&sketch.head, text.data(), text.size());
        }
        return sketch;
    }

    struct Entry {
        Sketch sketch;
        std::size_t size = SIZE_MAX;  // SIZE_MAX: empty entry
        std::string text;
        std::uint32_t id = 0;
    };

    std::array<Entry, std::size_t{1} << kEntryBits> entries_{};
};

}  // namespace peergate::sources::nccl
