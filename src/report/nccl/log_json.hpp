// SPDX-License-Identifier: Apache-2.0
// `peergate nccl-log --json`: the peergate.nccl_log/v1 document (docs/contracts.md).
#pragma once

#include "report/nccl/log_report.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace peergate::report::nccl {

// The document: schema first, then connections, transport_counts, ranks, settings,
// findings (docs/contracts.md), then pairs, graphs, rings, topology, line counts.
nlohmann::ordered_json nccl_log_to_json(const NcclLogReport& report);

// The same document as text, ready to print: pretty, schema first, one line per connection
// (a big job has tens of thousands), and bytes that are not UTF-8 replaced, never thrown on.
std::string nccl_log_to_json_text(const NcclLogReport& report);

// The same text handed to `write` in pieces of about a MiB as it is made, so a log of
// hundreds of thousands of connections is never held as text whole (docs/RELIABILITY.md).
void write_nccl_log_json(const NcclLogReport& report,
                         const std::function<void(std::string_view)>& write);

}  // namespace peergate::report::nccl
