// SPDX-License-Identifier: Apache-2.0
// The streaming NCCL log reader. Feed it lines (or chunks of any size) from one or more
// logs; it keeps one entry per distinct connection, rank, setting, graph and ring, so its
// memory grows with the job (ranks x channels), never with the length of the log.
// Pure: it never opens a file; the caller reads and feeds. It cuts lines into records and
// hands each to its reader: connections go to a ConnectionTable, settings, graphs, rings
// and trees to a ChoiceTable; ranks, topology dumps, GDR lines and counts it keeps itself.
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/flat_index.hpp"
#include "sources/nccl/interned_texts.hpp"
#include "sources/nccl/nccl_choice_table.hpp"
#include "sources/nccl/nccl_connection_table.hpp"
#include "sources/nccl/nccl_gdr.hpp"
#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/nccl_record.hpp"
#include "sources/nccl/nccl_record_bodies.hpp"
#include "sources/nccl/nccl_topo_dump.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
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
    void read_line(std::string_view line);
    void feed_lines(std::string_view chunk);

    // Every public call ends with this: pending connection lookups hold views of the
    // caller's buffer.
    void flush_pending() { connections_.flush_pending(); }

    void read_record(const NcclRecord& record);
    bool read_dump_line(const NcclRecord& record);
    void read_connection_or_ring(std::string_view host, std::string_view body);
    void read_rank_or_version(std::string_view host, std::string_view body);
    void add_rank(std::string_view host, const RankLine& line);
    std::uint32_t rank_slot(std::string_view head, int rank);
    // merge_from's steps for the records the parser keeps itself.
    void merge_ranks(NcclLogParser& later);
    void merge_topology(NcclLogParser& later);
    void merge_counts(const model::NcclLineCounts& later);

    InternedTexts hosts_;  // a connection's key and a ring's hash hold the host's number
    ConnectionTable connections_;
    ChoiceTable choices_;
    HashedIndex rank_index_;                    // by commId (or "n<nranks>") and rank
    std::vector<std::string> rank_heads_;       // each rank's commId or "n<nranks>"
    std::vector<std::uint32_t> rank_head_ids_;  // the same, interned in heads_
    InternedTexts heads_;
    std::vector<model::NcclRank> ranks_;
    std::vector<bool> rank_bus_set_;  // whether a line gave the rank a busId (merge_from needs it)
    RingLine ring_scratch_;           // reused by every ring line
    std::unordered_map<std::string, TopologyDumpReader, TransparentHash, std::equal_to<>> dumps_;
    std::map<std::string, model::NcclHostTopology> topology_;
    std::size_t active_dumps_ = 0;
    std::string version_;
    GdrRecords gdr_;
    model::NcclLineCounts counts_;
    std::string carry_;
    std::string key_;  // a rank's head when the line has no commId
    bool carry_overflow_ = false;
};

}  // namespace peergate::sources::nccl
