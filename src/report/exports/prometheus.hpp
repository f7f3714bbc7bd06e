// SPDX-License-Identifier: Apache-2.0
// The node_exporter textfile (Prometheus text format 0.0.4) for `peergate export
// prometheus`, following docs/ecosystem.md §2: one HELP and TYPE per family, families
// contiguous, base units, DCGM's `gpu`/`peer_gpu`/`UUID`/`pci_bus_id` labels, no
// timestamps, and a final newline.
#pragma once

#include "report/exports/facts.hpp"
#include "report/exports/prometheus_family.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace peergate::report::exports {

std::string export_prometheus(const ExportFacts& facts);

// The last success recorded in a textfile this renderer wrote (0 or absent: none).
std::optional<double> last_success_in(std::string_view textfile);

}  // namespace peergate::report::exports
