// SPDX-License-Identifier: Apache-2.0
// How much the NCCL log parser may keep. The parser keeps one entry per distinct
// connection, rank, choice, GDR line and dump line, so a real log costs what its job has
// (ranks x channels), but a hostile or damaged one made of distinct keys would grow without
// end (docs/RELIABILITY.md, "nccl-log"). Each table has a byte budget: an entry that no
// longer fits is dropped and its record counted, so the report says what it did not keep.
#pragma once

#include <cstddef>
#include <cstdint>

namespace peergate::sources::nccl {

// The budget of each table, in bytes of what it keeps (entries and their texts, an index
// slot each). Their sum, about 320 MiB, keeps `nccl-log` under 1 GiB with the result and
// the analysis built from it; a 4,096-rank job's log needs about a tenth of it.
struct NcclParserLimits {
    std::size_t connection_bytes = std::size_t{160} << 20;
    std::size_t rank_bytes = std::size_t{32} << 20;
    std::size_t choice_bytes = std::size_t{48} << 20;  // settings, graphs, rings, trees
    std::size_t gdr_bytes = std::size_t{16} << 20;
    std::size_t topology_bytes = std::size_t{32} << 20;
    std::size_t text_count = std::size_t{1} << 16;   // distinct hosts, details, heads each
    std::size_t text_bytes = std::size_t{16} << 20;  // and their bytes, each table
    std::size_t diag_bytes = std::size_t{16} << 20;  // P2P diagnostics and RAS lines

    // Each table's share when `pieces` parsers read one file at once, so together they
    // keep no more than one parser would: the text tables too, or two pieces could each hold
    // texts that one parser, merging them, cannot (the fuzz target's merge check found it).
    NcclParserLimits shared_by(std::size_t pieces) const {
        const std::size_t n = pieces == 0 ? 1 : pieces;
        return {connection_bytes / n,
                rank_bytes / n,
                choice_bytes / n,
                gdr_bytes / n,
                topology_bytes / n,
                text_count / n,
                text_bytes / n,
                diag_bytes / n};
    }
};

// Cost of one kept entry beyond its texts: the index slot and the allocator's overhead.
inline constexpr std::size_t kEntryOverheadBytes = 48;

class EntryBudget {
public:
    explicit EntryBudget(std::size_t limit_bytes) : limit_(limit_bytes) {}

    // True, and charged, when an entry of `bytes` still fits; false counts `records`
    // dropped.
    bool admit(std::size_t bytes, std::uint64_t records = 1) {
        if (!fits(bytes)) {  // used_ never passes limit_
            dropped_ += records;
            return false;
        }
        used_ += bytes;
        return true;
    }

    // True when `bytes` more would still fit (nothing is charged).
    bool fits(std::size_t bytes) const { return bytes <= limit_ - used_; }

    // Gives back what entries now freed were charged (a table that forgets open state).
    void release(std::size_t bytes) { used_ -= bytes < used_ ? bytes : used_; }

    // Records dropped before they reached the table (a text the parser could not number).
    void drop(std::uint64_t records = 1) { dropped_ += records; }

    // Takes in the records `later` dropped (its kept entries are charged as they merge).
    void add_dropped(const EntryBudget& later) { dropped_ += later.dropped_; }

    std::uint64_t dropped() const { return dropped_; }

private:
    std::size_t limit_;
    std::size_t used_ = 0;
    std::uint64_t dropped_ = 0;
};

}  // namespace peergate::sources::nccl
