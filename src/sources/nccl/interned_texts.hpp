// SPDX-License-Identifier: Apache-2.0
// Texts turned into small numbers (0, 1, 2, ... in the order first seen), with the
// RecentTexts cache in front: the parser numbers host names, transport details and
// communicator heads on every line that names one, and a number is cheaper to hash and
// compare than the text.
#pragma once

#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/recent_texts.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace peergate::sources::nccl {

// What id_of gives a new text once the table holds its cap: the caller drops the record.
inline constexpr std::uint32_t kNoTextId = UINT32_MAX;

class InternedTexts {
public:
    // Holds at most `max_texts` texts of `max_bytes` in all (docs/RELIABILITY.md: a log of
    // distinct host names would otherwise grow the table without end).
    explicit InternedTexts(std::size_t max_texts = std::size_t{1} << 16,
                           std::size_t max_bytes = std::size_t{16} << 20)
        : max_texts_(max_texts), max_bytes_(max_bytes) {}

    // The number of `text`, given now when it is new; kNoTextId when the table is full.
    std::uint32_t id_of(std::string_view text) {
        return recent_.id_of(text, [this](std::string_view missed) { return intern(missed); });
    }

private:
    // The number of `text` in table_, bypassing the cache.
    std::uint32_t intern(std::string_view text);

    std::unordered_map<std::string, std::uint32_t, TransparentHash, std::equal_to<>> table_;
    RecentTexts recent_;
    std::size_t max_texts_;
    std::size_t max_bytes_;
    std::size_t used_bytes_ = 0;
};

}  // namespace peergate::sources::nccl
