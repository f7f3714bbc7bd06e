// SPDX-License-Identifier: Apache-2.0
// The parser's table of connections: one entry per distinct connection (host, channel,
// ranks, direction, transport, detail) with the number of lines that showed it, in the
// order the connections first appeared. Every connection line ends here, so the lookup is
// tuned: a 16-byte key when the fields fit, an open-addressing index, and a short queue
// of pending lookups whose slots are prefetched while the next lines are read.
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/entry_budget.hpp"
#include "sources/nccl/flat_index.hpp"
#include "sources/nccl/interned_texts.hpp"
#include "sources/nccl/nccl_connection_body.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::sources::nccl {

class ConnectionTable {
public:
    // Keeps connections up to `limits.connection_bytes`; the lines of the rest are counted
    // in dropped().
    explicit ConnectionTable(const NcclParserLimits& limits = {})
        : details_(limits.text_count, limits.text_bytes), budget_(limits.connection_bytes) {}

    // Counts one connection line of `host`, whose number is `host_id`. The lookup may wait
    // in the queue: the views of `host` and `line` must stay valid until flush_pending().
    void add(std::uint32_t host_id, std::string_view host, const ConnectionLine& line);

    // Does every lookup still queued.
    void flush_pending();

    // Takes in what `later` read, as if its input had followed this table's: counts add
    // up and connections keep the order in which they first appeared. `hosts` numbers the
    // hosts for this table (later's numbers are its own).
    void merge_from(ConnectionTable&& later, InternedTexts& hosts);

    // Writes the connections, each with its count, to `log`. Call flush_pending() first.
    void into(model::NcclLog& log) const;

    // Connection lines not kept: their table was full (entry_budget.hpp).
    std::uint64_t dropped() const { return budget_.dropped(); }

private:
    struct ConnectionKey {
        std::uint32_t host = 0;
        std::uint32_t detail = 0;
        int channel = 0;
        int conn_index = 0;
        int src_rank = 0;
        int dst_rank = 0;
        std::uint8_t direction = 0;
        std::uint8_t transport = 0;
        friend bool operator==(const ConnectionKey&, const ConnectionKey&) = default;
    };

    struct ConnectionKeyHash {
        std::size_t operator()(const ConnectionKey& key) const;
    };

    // The same key in 16 bytes, for the fields' usual ranges (see pack_key): a smaller
    // table slot means fewer cache misses on the lookup every connection line makes.
    struct PackedKey {
        std::uint64_t ranks = 0;
        std::uint64_t rest = 0;
        friend bool operator==(const PackedKey&, const PackedKey&) = default;
    };

    struct PackedKeyHash {
        std::size_t operator()(const PackedKey& key) const;
    };

    static std::optional<PackedKey> pack_key(const ConnectionKey& key);

    // A connection line whose table lookup waits a few lines so its slot can be fetched
    // meanwhile; its views point into the caller's buffer, so every public call of the
    // parser ends with flush_pending().
    struct PendingConnection {
        PackedKey key;
        std::size_t hash = 0;
        std::string_view host;
        ConnectionLine line;
    };

    static constexpr std::size_t kPrefetchDepth = 8;

    void queue(std::string_view host, const ConnectionLine& line, const PackedKey& key);
    void resolve_oldest_pending();
    void add_unpacked(const ConnectionKey& key, std::string_view host, const ConnectionLine& line);
    void store(std::string_view host,
               const ConnectionLine& line,
               std::pair<std::uint32_t, bool> found);
    void append(std::string_view host, const ConnectionLine& line);
    // The admit of a new connection: charges its bytes, or counts its `lines` dropped. Its
    // bus ids (16 hex digits at most) are counted in the entry's own size.
    bool admit(std::string_view host, std::string_view detail, std::uint64_t lines);

    InternedTexts details_;
    EntryBudget budget_;
    FlatIndex<PackedKey, PackedKeyHash> packed_index_;
    FlatIndex<ConnectionKey, ConnectionKeyHash> connection_index_;  // keys pack_key cannot hold
    std::vector<model::NcclConnection> connections_;
    std::array<PendingConnection, kPrefetchDepth> pending_{};
    std::size_t pending_head_ = 0;
    std::size_t pending_count_ = 0;
};

// The per-line path, inline: the parser's line dispatch calls add() for every connection
// line, and a call into another translation unit per line and per queued lookup would
// undo part of what the queue saves. New connections and wide keys go out of line.

inline void ConnectionTable::add(std::uint32_t host_id,
                                 std::string_view host,
                                 const ConnectionLine& line) {
    const std::uint32_t detail_id = details_.id_of(line.detail);
    if (host_id == kNoTextId || detail_id == kNoTextId) {
        budget_.drop();  // a text the full tables could not number: the key cannot be told
        return;
    }
    const ConnectionKey key{host_id,
                            detail_id,
                            line.channel,
                            line.conn_index.value_or(-1),
                            line.src_rank,
                            line.dst_rank.value_or(-1),
                            static_cast<std::uint8_t>(line.direction),
                            static_cast<std::uint8_t>(line.transport)};
    if (const auto packed = pack_key(key)) {
        queue(host, line, *packed);
        return;
    }
    add_unpacked(key, host, line);
}

inline void ConnectionTable::queue(std::string_view host,
                                   const ConnectionLine& line,
                                   const PackedKey& key) {
    if (pending_count_ == kPrefetchDepth) {
        resolve_oldest_pending();
    }
    auto& entry = pending_[(pending_head_ + pending_count_) % kPrefetchDepth];
    entry = PendingConnection{key, PackedKeyHash{}(key), host, line};
    packed_index_.prefetch(entry.hash);
    ++pending_count_;
}

inline void ConnectionTable::resolve_oldest_pending() {
    const auto& entry = pending_[pending_head_];
    pending_head_ = (pending_head_ + 1) % kPrefetchDepth;
    --pending_count_;
    store(entry.host,
          entry.line,
          packed_index_.count(
              entry.key, entry.hash, static_cast<std::uint32_t>(connections_.size()), 1, [&] {
                  return admit(entry.host, entry.line.detail, 1);
              }));
}

inline void ConnectionTable::flush_pending() {
    while (pending_count_ > 0) {
        resolve_oldest_pending();
    }
}

inline bool ConnectionTable::admit(std::string_view host,
                                   std::string_view detail,
                                   std::uint64_t lines) {
    return budget_.admit(
        sizeof(model::NcclConnection) + kEntryOverheadBytes + host.size() + detail.size(), lines);
}

inline void ConnectionTable::store(std::string_view host,
                                   const ConnectionLine& line,
                                   std::pair<std::uint32_t, bool> found) {
    if (!found.second) {
        return;  // counted in the index
    }
    append(host, line);
}

}  // namespace peergate::sources::nccl
