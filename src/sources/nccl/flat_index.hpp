// SPDX-License-Identifier: Apache-2.0
// An open-addressing map from a small plain key to a 32-bit slot number. The parser looks
// up one key per connection line, millions of times; keeping key and value inline in one
// array costs one cache line per lookup where a node-based map chases two pointers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace peergate::sources::nccl {

template <typename Key, typename Hash>
class FlatIndex {
public:
    // The value stored for `key`, or `next` stored now; second is true when inserted.
    std::pair<std::uint32_t, bool> find_or_insert(const Key& key, std::uint32_t next) {
        if ((size_ + 1) * 2 > slots_.size()) {
            grow();
        }
        std::size_t at = Hash{}(key) & (slots_.size() - 1);
        while (slots_[at].used) {
            if (slots_[at].key == key) {
                return {slots_[at].value, false};
            }
            at = (at + 1) & (slots_.size() - 1);
        }
        slots_[at] = Slot{key, next, true};
        ++size_;
        return {next, true};
    }

    std::size_t size() const { return size_; }

private:
    struct Slot {
        Key key{};
        std::uint32_t value = 0;
        bool used = false;
    };

    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
        size_ = 0;
        for (const auto& slot : old) {
            if (slot.used) {
                find_or_insert(slot.key, slot.value);
            }
        }
    }

    std::vector<Slot> slots_;
    std::size_t size_ = 0;
};

}  // namespace peergate::sources::nccl
