// SPDX-License-Identifier: Apache-2.0
// An open-addressing map from a small plain key to a 32-bit slot number. The parser looks
// up one key per connection line, millions of times; keeping key and value inline in one
// array costs one cache line per lookup where a node-based map chases two pointers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace peergate::sources::nccl {

// The slot number an index gives when its `admit` refused a new key: nothing was stored.
inline constexpr std::uint32_t kRefused = UINT32_MAX;

// The default `admit`: every new key is stored.
struct AdmitAll {
    bool operator()() const { return true; }
};

// Counts keys: each slot holds the key, its 32-bit value and its count, so the lookup
// and the count that every connection line makes touch one slot, not a second array.
// A count of 0 marks a free slot.
template <typename Key, typename Hash>
class FlatIndex {
public:
    // Counts one more `key`: its value, or `next` stored now with a count of 1; second is
    // true when inserted.
    std::pair<std::uint32_t, bool> count(const Key& key, std::uint32_t next) {
        return count(key, Hash{}(key), next);
    }

    // The same, with `hash` = Hash{}(key) already known (see prefetch), counting `amount`
    // (at least 1) at once. A new key is stored only when admit() says so (the table's
    // budget, entry_budget.hpp); otherwise {kRefused, false}.
    template <typename Admit = AdmitAll>
    std::pair<std::uint32_t, bool> count(const Key& key,
                                         std::size_t hash,
                                         std::uint32_t next,
                                         std::uint64_t amount = 1,
                                         Admit&& admit = {}) {
        if ((size_ + 1) * 2 > slots_.size()) {
            grow();
        }
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
            Slot& slot = slots_[at];
            if (slot.count == 0) {
                if (!admit()) {
                    return {kRefused, false};
                }
                slot = Slot{key, next, 1};
                add(slot, amount - 1);
                ++size_;
                return {next, true};
            }
            if (slot.key == key) {
                add(slot, amount);
                return {slot.value, false};
            }
        }
    }

    std::size_t size() const { return size_; }

    // Calls visit(value, count) for every key, in no particular order.
    template <typename Visit>
    void for_each(Visit&& visit) const {
        for (const auto& slot : slots_) {
            if (slot.count != 0) {
                const auto spilled = overflow_.find(slot.value);
                visit(slot.value, slot.count + (spilled == overflow_.end() ? 0 : spilled->second));
            }
        }
    }

    // Starts loading the slot where a key hashing to `hash` would be looked for, so a
    // lookup made a few lines later finds it in cache rather than waiting on memory. Both
    // ends: a slot may straddle two cache lines. Written with integer addresses and no
    // branch: GCC 12 silently drops a __builtin_prefetch behind an `if (!slots_.empty())`
    // (checked in the assembly), and a prefetch of a null address is harmless.
    void prefetch(std::size_t hash) const {
        const auto address =
            reinterpret_cast<std::uintptr_t>(slots_.data()) + (hash & mask_) * sizeof(Slot);
        __builtin_prefetch(reinterpret_cast<const void*>(address));
        __builtin_prefetch(reinterpret_cast<const void*>(address + sizeof(Slot) - 1));
    }

private:
    struct Slot {
        Key key{};
        std::uint32_t value = 0;
        std::uint32_t count = 0;
    };

    // Counts from 2^32 - 1 on (a log of hundreds of GB) move to overflow_, so the slot
    // stays small; the slot keeps 1, since 0 marks a free slot.
    void add(Slot& slot, std::uint64_t amount) {
        std::uint64_t total = std::uint64_t{slot.count} + amount;
        if (total >= UINT32_MAX) {
            overflow_[slot.value] += total - 1;
            total = 1;
        }
        slot.count = static_cast<std::uint32_t>(total);
    }

    void grow() {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
        mask_ = slots_.size() - 1;
        const std::size_t mask = mask_;
        for (const auto& slot : old) {
            if (slot.count == 0) {
                continue;
            }
            std::size_t at = Hash{}(slot.key) & mask;
            while (slots_[at].count != 0) {
                at = (at + 1) & mask;
            }
            slots_[at] = slot;
        }
    }

    std::vector<Slot> slots_;
    std::size_t mask_ = 0;  // slots_.size() - 1; 0 while empty
    std::size_t size_ = 0;
    std::unordered_map<std::uint32_t, std::uint64_t> overflow_;
};

// An open-addressing index from a 64-bit hash to a slot number, for records whose key is
// text or a list (rings, ranks, graphs): the caller hashes the record's fields and says
// whether a stored slot holds an equal record, so no key string is built per line.
// Equal hashes of different records are both kept: the hash only picks where to look.
class HashedIndex {
public:
    // The slot of the record hashing to `hash` for which equal(slot) holds, or `next`
    // stored now when admit() agrees ({kRefused, false} when not); second is true when
    // inserted.
    template <typename Equal, typename Admit = AdmitAll>
    std::pair<std::uint32_t, bool> find_or_insert(std::uint64_t hash,
                                                  std::uint32_t next,
                                                  Equal&& equal,
                                                  Admit&& admit = {}) {
        if ((size_ + 1) * 2 > slots_.size()) {
            grow();
        }
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
            Slot& slot = slots_[at];
            if (!slot.used) {
                if (!admit()) {
                    return {kRefused, false};
                }
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
