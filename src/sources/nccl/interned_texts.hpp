// SPDX-License-Identifier: Apache-2.0
// Texts turned into small numbers (0, 1, 2, ... in the order first seen), with the
// RecentTexts cache in front: the parser numbers host names, transport details and
// communicator heads on every line that names one, and a number is cheaper to hash and
// compare than the text.
#pragma once

#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/recent_texts.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace peergate::sources::nccl {

class InternedTexts {
public:
    // The number of `text`, given now when it is new.
    std::uint32_t id_of(std::string_view text) {
        return recent_.id_of(text, [this](std::string_view missed) { return intern(missed); });
    }

private:
    // The number of `text` in table_, bypassing the cache.
    std::uint32_t intern(std::string_view text);

    std::unordered_map<std::string, std::uint32_t, TransparentHash, std::equal_to<>> table_;
    RecentTexts recent_;
};

}  // namespace peergate::sources::nccl
