// SPDX-License-Identifier: Apache-2.0
// Where a command's topology comes from: the tiers on this host, or a saved file.
#pragma once

#include "cli/invocation.hpp"
#include "model/discovery.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::cli {

// Runs the tiers with `source` ("auto", "nvml", "smi"); the cross-check is on when asked
// or when PEERGATE_TOPO_CROSSCHECK=1 (alias UNSLOTH_P2P_TOPO_CROSSCHECK=1). With
// `nvml_record`, the NVML tier also records links and P2P status there, in its one session.
model::Discovery discover(const Invocation& inv,
                          const std::string& source,
                          bool crosscheck,
                          util::Expected<nvml::NvmlRecord>* nvml_record = nullptr);

// Reads a saved `nvidia-smi topo -m` text or a machine file (peergate.machine/v1).
model::Discovery read_topology_file(const std::string& path);

}  // namespace peergate::cli
