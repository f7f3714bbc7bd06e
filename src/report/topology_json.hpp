// SPDX-License-Identifier: Apache-2.0
// peergate.topology/v1: the interconnect matrix as other tools read it (DESIGN.md).
#pragma once

#include <nlohmann/json.hpp>

#include "model/discovery.hpp"

namespace peergate::report {

// The document for `topo --json`. `source` is the tier that answered ("nvml",
// "nvidia-smi", "file", "simulated") or "none" with readable false and a reason.
nlohmann::ordered_json topology_to_json(const model::Discovery& discovery);

// The GPU list and matrix part alone, for documents that embed a topology.
nlohmann::ordered_json gpus_to_json(const model::Topology& topology);
nlohmann::ordered_json matrix_to_json(const model::Topology& topology);

}  // namespace peergate::report
