// SPDX-License-Identifier: Apache-2.0
// The ranks of an NCCL log: one entry per communicator and rank, from the "comm 0x...
// rank N nranks M cudaDev D nvmlDev V busId B commId 0x... - Init START/COMPLETE" lines.
// Each field keeps the value the last line that gave it left, as the log's own order has it.
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/entry_budget.hpp"
#include "sources/nccl/flat_index.hpp"
#include "sources/nccl/interned_texts.hpp"
#include "sources/nccl/nccl_record_bodies.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::sources::nccl {

class RankTable {
public:
    // Keeps ranks up to `limits.rank_bytes`; the lines of the rest are counted in dropped().
    explicit RankTable(const NcclParserLimits& limits = {})
        : heads_(limits.text_count, limits.text_bytes), budget_(limits.rank_bytes) {}

    void add(std::string_view host, const RankLine& line);

    // Takes in the ranks `later` read from the input that followed this table's.
    void merge_from(RankTable&& later);

    void into(model::NcclLog& log) const { log.ranks = ranks_; }

    // Rank lines not kept (or whose new host was not): the table was full.
    std::uint64_t dropped() const { return budget_.dropped(); }

private:
    // The slot of (head, rank), added with `host` when new and its bytes fit; kRefused
    // when they do not.
    std::uint32_t slot_of(std::string_view head, int rank, std::string_view host);
    // A rank's host as its latest line gives it; the old one stays when the budget has no
    // room for a longer one.
    void set_host(model::NcclRank& rank, std::string_view host);

    HashedIndex index_;                    // by commId (or "n<nranks>") and rank
    std::vector<std::string> head_texts_;  // each rank's commId or "n<nranks>"
    std::vector<std::uint32_t> head_ids_;  // the same, interned in heads_
    InternedTexts heads_;
    std::vector<model::NcclRank> ranks_;
    std::vector<bool> bus_set_;  // whether a line gave the rank a busId (merge_from needs it)
    std::string key_;            // a rank's head when the line has no commId
    EntryBudget budget_;
};

}  // namespace peergate::sources::nccl
