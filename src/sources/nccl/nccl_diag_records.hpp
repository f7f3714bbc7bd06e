// SPDX-License-Identifier: Apache-2.0
// The distinct P2P diagnostics and RAS lines of a log, as the parser meets them: each line
// is read on its own (nccl_diag, nccl_ras_lines), so pieces of a log read apart and merged
// give what one reader gives. Kept up to NcclParserLimits::diag_bytes, the rest counted.
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/entry_budget.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::sources::nccl {

class DiagRecords {
public:
    explicit DiagRecords(const NcclParserLimits& limits = {}) : budget_(limits.diag_bytes) {}

    // True when the record was a diagnostics or RAS line (kept or counted), or a line of the
    // report that says nothing per edge (its header, its completion time). `marked`: the
    // body came after "NCCL INFO"; an unmarked one is a whole line, where "NCCL DIAG" and
    // ncclras's output stand.
    bool read(std::string_view host, std::string_view body, bool marked);

    // Takes in what `later` read, as if its input had followed.
    void merge_from(DiagRecords&& later);

    void into(model::NcclLog& log) const;

    // Records not kept: the table was full (entry_budget.hpp).
    std::uint64_t dropped() const { return budget_.dropped(); }

private:
    bool read_marked(std::string_view host, std::string_view body);
    bool read_diag(std::string_view host, std::string_view rest);
    void add(model::NcclDiagLine&& line);
    void add(model::NcclRasLine&& line);

    std::vector<model::NcclDiagLine> diagnostics_;
    std::vector<model::NcclRasLine> ras_;
    std::map<std::string, std::size_t, std::less<>> index_;  // kind, host + text -> position
    EntryBudget budget_;
};

}  // namespace peergate::sources::nccl
