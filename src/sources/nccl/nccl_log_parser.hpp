// SPDX-License-Identifier: Apache-2.0
// The streaming NCCL log reader. Feed it lines (or chunks of any size) from one or more
// logs; it keeps one entry per distinct connection, rank, setting, graph and ring, so its
// memory grows with the job (ranks x channels), never with the length of the log.
// Pure: it never opens a file; the caller reads and feeds.
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/flat_index.hpp"
#include "sources/nccl/nccl_connection_body.hpp"
#include "sources/nccl/nccl_gdr.hpp"
#include "sources/nccl/nccl_record.hpp"
#include "sources/nccl/nccl_record_bodies.hpp"
#include "sources/nccl/nccl_topo_dump.hpp"
#include "sources/nccl/recent_texts.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace peergate::sources::nccl {

// Lines longer than this are dropped (counted as skipped): no log line is this long,
// and the cap keeps a file with no newlines from growing the carry buffer without end.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

class NcclLogParser {
public:
    // One physical line, without its '\n'.
    void feed_line(std::string_view line);

    // Any slice of a log; lines may straddle calls. Call end_input() after each file.
    void feed(std::string_view chunk);

    // Ends the current input: a last line without '\n' is read, open dumps are closed.
    void end_input();

    // Everything read so far (the parser may keep reading afterwards).
    model::NcclLog result() const;

    // True when no line is half read and no topology dump is open: what follows can be
    // parsed by a fresh parser and merged, as if this one had read it.
    bool between_records() const {
        return active_dumps_ == 0 && carry_.empty() && !carry_overflow_;
    }

    // Takes in what `later` read, as if its input had followed this parser's: counts add
    // up, records keep the order in which they first appeared, later values of a rank's
    // fields win, and later's open state (a half line, open dumps) becomes this one's.
    // Exact when this parser was between_records() where later's input began.
    void merge_from(NcclLogParser&& later);

private:
    struct TransparentHash {
        using is_transparent = void;

        std::size_t operator()(std::string_view text) const {
            return std::hash<std::string_view>{}(text);
        }
    };

    using Interned =
        std::unordered_map<std::string, std::uint32_t, TransparentHash, std::equal_to<>>;
    using Index = std::unordered_map<std::string, std::size_t, TransparentHash, std::equal_to<>>;

    // The slot of `key` in `index`, adding `next` when absent; second is true when added.
    // Keys are built in key_ and looked up as views, so a known key costs no allocation.
    static std::pair<std::size_t, bool> slot_of(Index& index,
                                                std::string_view key,
                                                std::size_t next);

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
    // meanwhile; its views point into the caller's buffer, so every public call ends
    // with flush_pending().
    struct PendingConnection {
        PackedKey key;
        std::size_t hash = 0;
        std::string_view host;
        ConnectionLine line;
    };

    static constexpr std::size_t kPrefetchDepth = 8;

    void read_line(std::string_view line);
    void feed_lines(std::string_view chunk);
    void queue_connection(std::string_view host, const ConnectionLine& line, const PackedKey& key);
    void resolve_oldest_pending();
    void flush_pending();
    void store_connection(std::string_view host,
                          const ConnectionLine& line,
                          std::pair<std::uint32_t, bool> found);
    void read_record(const NcclRecord& record);
    bool read_dump_line(const NcclRecord& record);
    void read_connection_or_ring(std::string_view host, std::string_view body);
    void read_rank_or_version(std::string_view host, std::string_view body);
    void add_connection(std::string_view host, const ConnectionLine& line);
    void add_rank(std::string_view host, const RankLine& line);
    std::uint32_t rank_slot(std::string_view head, int rank);
    void add_setting(const SettingLine& line);
    std::size_t setting_slot(std::string_view name);
    void add_setting_value(std::size_t slot, std::string_view value);
    void add_graph(std::string_view host, const GraphLine& line, std::uint64_t count = 1);
    void add_ring(std::string_view host, const RingLine& line);
    void add_ring(std::string_view host, int channel, const std::vector<int>& order);
    void add_trees(std::string_view host, std::vector<TreeEntry>&& entries);
    void add_tree(model::NcclTree&& tree);
    // merge_from's steps (nccl_log_merge.cpp), each for one kind of record.
    void merge_connections(NcclLogParser& later);
    void merge_ranks(NcclLogParser& later);
    void merge_settings_and_graphs(NcclLogParser& later);
    void merge_topology(NcclLogParser& later);
    std::uint32_t intern(Interned& table, std::string_view text);
    std::uint32_t host_id(std::string_view host);
    std::uint32_t detail_id(std::string_view detail);

    Interned hosts_;
    Interned details_;
    RecentTexts recent_details_;
    RecentTexts recent_hosts_;
    FlatIndex<PackedKey, PackedKeyHash> packed_index_;
    FlatIndex<ConnectionKey, ConnectionKeyHash> connection_index_;  // keys pack_key cannot hold
    std::vector<model::NcclConnection> connections_;
    std::array<PendingConnection, kPrefetchDepth> pending_{};
    std::size_t pending_head_ = 0;
    std::size_t pending_count_ = 0;
    HashedIndex rank_index_;                    // by commId (or "n<nranks>") and rank
    std::vector<std::string> rank_heads_;       // each rank's commId or "n<nranks>"
    std::vector<std::uint32_t> rank_head_ids_;  // the same, interned in heads_
    Interned heads_;
    RecentTexts recent_heads_;
    std::vector<model::NcclRank> ranks_;
    std::vector<bool> rank_bus_set_;  // whether a line gave the rank a busId (merge_from needs it)
    Index setting_index_;
    std::vector<std::pair<std::string, std::vector<std::string>>> settings_;  // all values
    HashedIndex graph_index_;
    std::vector<model::NcclGraph> graphs_;
    HashedIndex ring_index_;
    std::vector<model::NcclRing> rings_;
    RingLine ring_scratch_;  // reused by every ring line
    Index tree_index_;
    std::vector<model::NcclTree> trees_;
    std::unordered_map<std::string, TopologyDumpReader, TransparentHash, std::equal_to<>> dumps_;
    std::map<std::string, model::NcclHostTopology> topology_;
    std::size_t active_dumps_ = 0;
    std::string version_;
    GdrRecords gdr_;
    model::NcclLineCounts counts_;
    std::string carry_;
    std::string key_;
    bool carry_overflow_ = false;
};

}  // namespace peergate::sources::nccl
