// SPDX-License-Identifier: Apache-2.0
// peergate.topology/v1: the interconnect matrix as other tools read it (docs/contracts.md).
#pragma once

#include "model/discovery.hpp"
#include "policy/placement/nic_affinity.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace peergate::report::topology {

// The document for `topo --json`. `source` is the tier that answered ("nvml",
// "nvidia-smi", "file", "simulated") or "none" with readable false and a reason.
nlohmann::ordered_json topology_to_json(const model::Discovery& discovery);

// Why there is no matrix: the overall reason, then what each tier said that the overall
// reason does not already contain ("...: nvidia-smi: 'nvidia-smi topo -m' did not finish ...").
// Empty when there is a matrix.
std::string unreadable_reason(const model::Discovery& discovery);

// The GPU list and matrix part alone, for documents that embed a topology.
nlohmann::ordered_json gpus_to_json(const model::Topology& topology);
nlohmann::ordered_json matrix_to_json(const model::Topology& topology);

// The document's "nics" (each NIC with its class of path to each GPU, in "gpus" order, its
// NUMA node and names) and "nearest_nics" (each GPU's closest NICs) into `doc`; both null
// where sysfs was not read (a saved file).
void add_nics(nlohmann::ordered_json& doc,
              const std::optional<policy::placement::NicAffinity>& affinity,
              const model::Topology* topology);

// One entry of "nearest_nics": {"gpu", "nics": ["NIC0"], "path"} for the GPU at `position`.
nlohmann::ordered_json nearest_nic_to_json(const policy::placement::NicAffinity& affinity,
                                           const model::Topology& topology,
                                           std::size_t position);

}  // namespace peergate::report::topology
