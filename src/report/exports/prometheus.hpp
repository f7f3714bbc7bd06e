// SPDX-License-Identifier: Apache-2.0
// The node_exporter textfile (Prometheus text format 0.0.4) for `peergate export
// prometheus`, following docs/ecosystem.md §2: one HELP and TYPE per family, families
// contiguous, base units, DCGM's `gpu`/`peer_gpu`/`UUID`/`pci_bus_id` labels, no
// timestamps, and a final newline.
#pragma once

#include "report/exports/facts.hpp"
#include "report/exports/prometheus_family.hpp"
#include "report/exports/prometheus_previous.hpp"

#include <string>

namespace peergate::report::exports {

std::string export_prometheus(const ExportFacts& facts);

}  // namespace peergate::report::exports
