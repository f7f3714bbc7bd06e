// SPDX-License-Identifier: Apache-2.0
// What the reader could not see: a finding that says so keeps an empty or partial answer
// from reading as "nothing wrong".
#include "policy/nccl/findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

namespace peergate::policy::nccl {

namespace {

using model::Finding;
using model::Severity;

std::string plural(std::uint64_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The parser keeps what its budget allows (sources/nccl/entry_budget.hpp,
// docs/RELIABILITY.md): past it, records are counted, not kept, and every figure drawn
// from them is a lower bound.
void capped_rule(const model::NcclDroppedRecords& dropped, std::vector<Finding>& out) {
    if (dropped.total() == 0) {
        return;
    }
    std::vector<std::string> parts;
    const auto add = [&parts](std::uint64_t n, const char* one, const char* many) {
        if (n > 0) {
            parts.push_back(plural(n, one, many));
        }
    };
    add(dropped.connections, "connection line", "connection lines");
    add(dropped.ranks, "rank line", "rank lines");
    add(dropped.choices,
        "setting, graph, ring or tree line",
        "setting, graph, ring and tree lines");
    add(dropped.gdr, "GPU Direct RDMA line", "GPU Direct RDMA lines");
    add(dropped.topology, "topology dump line", "topology dump lines");
    add(dropped.diagnostics, "diagnostics or RAS line", "diagnostics and RAS lines");
    out.push_back(Finding{
        .code = kNcclLogCapped,
        .severity = Severity::warning,
        .message = fmt::format("the input holds more distinct records than the reader keeps: "
                               "{} were counted but not kept, so the connections, pairs and "
                               "ranks shown are a part of the job",
                               fmt::join(parts, ", ")),
        .remedy = "read one job at a time (one log per job, or per host with NCCL_DEBUG_FILE="
                  "nccl.%h.%p), or check that the input is an NCCL log: no real job has this "
                  "many distinct connections, ranks or hosts"});
}

}  // namespace

void coverage_rules(const model::NcclLog& log, std::vector<Finding>& out) {
    if (log.connections.empty()) {
        out.push_back(Finding{
            .code = kNcclNoConnections,
            .severity = Severity::info,
            .message = "the input has no NCCL connection lines",
            .remedy = "run with NCCL_DEBUG=INFO (connection lines come from the INIT subsystem)"});
    }
    if (log.counts.skipped > 0) {
        out.push_back(Finding{
            .code = kNcclLinesSkipped,
            .severity = Severity::info,
            .message = fmt::format("{} looked like NCCL connection lines but could not be read "
                                   "and were skipped",
                                   plural(log.counts.skipped, "line", "lines"))});
    }
    capped_rule(log.counts.dropped, out);
}

}  // namespace peergate::policy::nccl
