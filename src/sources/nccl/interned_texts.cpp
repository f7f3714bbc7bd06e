// SPDX-License-Identifier: Apache-2.0
// The interning table behind InternedTexts' cache, reached only when the cache misses.
#include "sources/nccl/interned_texts.hpp"

namespace peergate::sources::nccl {

std::uint32_t InternedTexts::intern(std::string_view text) {
    if (auto found = table_.find(text); found != table_.end()) {
        return found->second;
    }
    if (table_.size() >= max_texts_ || text.size() > max_bytes_ - used_bytes_) {
        return kNoTextId;
    }
    used_bytes_ += text.size();
    const auto id = static_cast<std::uint32_t>(table_.size());
    table_.emplace(std::string(text), id);
    return id;
}

}  // namespace peergate::sources::nccl
