// SPDX-License-Identifier: Apache-2.0
// peergate.nccl_log/v1 and the short human summary of `peergate nccl-log`.
#pragma once

#include "model/nccl_log.hpp"
#include "policy/nccl/analysis.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace peergate::report {

struct NcclLogReport {
    std::vector<std::string> inputs;  // file names as given ("-" for stdin)
    std::string topology_file;        // --topology, empty when none
    const model::NcclLog* log = nullptr;
    const policy::nccl::NcclAnalysis* analysis = nullptr;
};

// The document: schema first, then connections, transport_counts, ranks, settings,
// findings (docs/contracts.md), then pairs, graphs, rings, topology, line counts.
nlohmann::ordered_json nccl_log_to_json(const NcclLogReport& report);

// The same document as text, ready to print: pretty, schema first, one line per connection
// (a big job has tens of thousands), and bytes that are not UTF-8 replaced, never thrown on.
std::string nccl_log_to_json_text(const NcclLogReport& report);

// A table of rank pairs x transport, then the findings. `max_pairs` rows at most.
std::string nccl_log_to_text(const NcclLogReport& report, bool color, std::size_t max_pairs);

}  // namespace peergate::report
