// SPDX-License-Identifier: Apache-2.0
// The streaming NCCL log reader. Feed it lines (or chunks of any size) from one or more
// logs; it keeps one entry per distinct connection, rank, setting, graph and ring, so its
// memory grows with the job (ranks x channels), never with the length of the log.
// Pure: it never opens a file; the caller reads and feeds. It cuts lines into records and
// hands each to its reader: connections go to a ConnectionTable, settings, graphs, rings
// and trees to a ChoiceTable, ranks to a RankTable, topology dumps to TopologyDumps, GDR
// lines to GdrRecords, P2P diagnostics and RAS lines to DiagRecords; it keeps the counts and the
// version itself. Each table keeps what its budget (NcclParserLimits) allows and counts the rest
// dropped, so no log, however hostile, grows it past them (docs/RELIABILITY.md).
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/entry_budget.hpp"
#include "sources/nccl/interned_texts.hpp"
#include "sources/nccl/nccl_choice_table.hpp"
#include "sources/nccl/nccl_connection_table.hpp"
#include "sources/nccl/nccl_diag_records.hpp"
#include "sources/nccl/nccl_gdr.hpp"
#include "sources/nccl/nccl_rank_table.hpp"
#include "sources/nccl/nccl_record.hpp"
#include "sources/nccl/nccl_record_bodies.hpp"
#include "sources/nccl/nccl_topo_dumps.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace peergate::sources::nccl {

// Lines longer than this are dropped (counted as skipped): no log line is this long,
// and the cap keeps a file with no newlines from growing the carry buffer without end.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

class NcclLogParser {
public:
    explicit NcclLogParser(const NcclParserLimits& limits = {})
        : limits_(limits),
          hosts_(limits.text_count, limits.text_bytes),
          connections_(limits),
          choices_(limits),
          ranks_(limits),
          dumps_(limits),
          gdr_(limits),
          diag_(limits) {}

    const NcclParserLimits& limits() const { return limits_; }

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
    bool between_records() const { return !dumps_.open() && carry_.empty() && !carry_overflow_; }

    // Records not kept so far, in all tables (result().counts.dropped, summed, and cheap).
    std::uint64_t dropped() const;

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
    void merge_counts(const model::NcclLineCounts& later);

    NcclParserLimits limits_;
    InternedTexts hosts_;  // a connection's key and a ring's hash hold the host's number
    ConnectionTable connections_;
    ChoiceTable choices_;
    RankTable ranks_;
    TopologyDumps dumps_;
    GdrRecords gdr_;
    DiagRecords diag_;       // NCCL 2.31's P2P diagnostics and the RAS lines
    RingLine ring_scratch_;  // reused by every ring line
    std::string version_;
    model::NcclLineCounts counts_;
    std::string carry_;
    bool carry_overflow_ = false;
};

}  // namespace peergate::sources::nccl
