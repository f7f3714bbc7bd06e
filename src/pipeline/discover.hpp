// SPDX-License-Identifier: Apache-2.0
// Where a command's topology comes from: the tiers on this host, or a saved file.
#pragma once

#include "model/discovery.hpp"
#include "pipeline/context.hpp"
#include "sources/documents/topology_file.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::pipeline {

// Runs the tiers with `source` ("auto", "nvml", "smi"); the cross-check is on when asked
// or when PEERGATE_TOPO_CROSSCHECK=1 (alias UNSLOTH_P2P_TOPO_CROSSCHECK=1). With
// `nvml_record`, the NVML tier also records links and P2P status there, in its one session.
model::Discovery discover(const Context& ctx,
                          const std::string& source,
                          bool crosscheck,
                          util::Expected<nvml::NvmlRecord>* nvml_record = nullptr);

// Reads a saved topology: `nvidia-smi topo -m` text, a peergate.topology/v1 document or a
// machine file (sources/documents/topology_file.hpp, the one reader of all three).
using sources::documents::read_topology_file;

}  // namespace peergate::pipeline
