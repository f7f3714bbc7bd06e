// SPDX-License-Identifier: Apache-2.0
// A small direct-mapped cache in front of an interning table, for the texts the parser
// turns into numbers on every connection line (host names, transport details). A job has
// few of them but its lines interleave them at random, so "same as the last line" misses
// most of the time, and a hash map lookup hashes the whole text through a library call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sources/nccl/text_cursor.hpp"

namespace peergate::sources::nccl {

class RecentTexts {
public:
    // The id of `text`: from the cache, or intern(text) remembered for the next time.
    template <typename Intern>
    std::uint32_t id_of(std::string_view text, Intern&& intern) {
        std::uint32_t pick = static_cast<std::uint32_t>(text.size());
        for (const char c : text) {
            pick = pick * 31 + static_cast<unsigned char>(c);
        }
        // The top bits of a multiplicative hash: every character moves them.
        Entry& entry = entries_[(pick * 0x9E3779B1U) >> (32 - kEntryBits)];
        if (!entry.used || !same_text(entry.text, text)) {
            entry = Entry{std::string(text), intern(text), true};
        }
        return entry.id;
    }

private:
    static constexpr unsigned kEntryBits = 8;
    struct Entry {
        std::string text;
        std::uint32_t id = 0;
        bool used = false;
    };
    std::array<Entry, std::size_t{1} << kEntryBits> entries_{};
};

}  // namespace peergate::sources::nccl
