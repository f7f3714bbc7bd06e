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
        return find_or_insert(key, Hash{}(key), next);
    }

    // The same, with `hash` = Hash{}(key) already known (see prefetch).
    std::pair<std::uint32_t, bool> find_or_insert(const Key& key, std::size_t hash, std::uint32_t next) {
        if ((size_ + 1) * 2 > slots_.size()) {
            grow();
        }
        std::size_t at = hash & (slots_.size() - 1);
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

    // Starts loading the slot where a key hashing to `hash` would be looked for, so a
    // lookup made a few lines later finds it in cache rather than waiting on memory.
    void prefetch(std::size_t hash) const {
        if (!slots_.empty()) {
            __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
        }
    }

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

// An open-addressing index from a 64-bit hash to a slot number, for records whose key is
// text or a list (rings, ranks, graphs): the caller hashes the record's fields and says
// whether a stored slot holds an equal record, so no key string is built per line.
// Equal hashes of different records are both kept: the hash only picks where to look.
class HashedIndex {
public:
    // The slot of the record hashing to `hash` for which equal(slot) holds, or `next`
    // stored now; second is true when inserted.
    template <typename Equal>
    std::pair<std::uint32_t, bool> find_or_insert(std::uint64_t hash, std::uint32_t next, Equal&& equal) {
        if ((size_ + 1) * 2 > slots_.size()) {
            grow();
        }
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
            Slot& slot = slots_[at];
            if (!slot.used) {
                slot = Slot{hash, next, true};
                ++size_;
                return {next, true};
            }
            if (slot.hash == hash && equal(slot.value)) {
                return {slot.value, false};
            }
        }
    }

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint32_t value = 0;
        bool used = false;
    };

    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(old.empty() ? 256 : old.size() * 2, Slot{});
        const std::size_t mask = slots_.size() - 1;
        for (const auto& slot : old) {
            if (!slot.used) {
                continue;
            }
            std::size_t at = slot.hash & mask;
            while (slots_[at].used) {
                at = (at + 1) & mask;
            }
            slots_[at] = slot;
        }
    }

    std::vector<Slot> slots_;
    std::size_t size_ = 0;
};

}  // namespace peergate::sources::nccl
