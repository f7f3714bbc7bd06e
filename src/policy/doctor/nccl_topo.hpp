// SPDX-License-Identifier: Apache-2.0
// The doctor's reading of the NCCL topology file the node's jobs will read (NCCL_TOPO_FILE,
// /etc/nccl.conf, NCCL's default path): one NCCL would refuse, one peergate could not read, and
// one that shows NCCL an NVLink the host does not have, which NCCL then trusts over NVML.
#pragma once

#include "model/finding.hpp"
#include "model/nccl_topo_file.hpp"
#include "model/topology.hpp"

#include <optional>
#include <vector>

namespace peergate::policy::doctor {

// `examined`: the GPUs examined, ascending. `pcie_unsafe`: PCIe peer copies can be silently
// dropped here (bare metal, translating IOMMU), which makes a false NVLink an error.
std::vector<model::Finding> nccl_topo_findings(const std::optional<model::NcclTopoFile>& file,
                                               const model::Topology& topology,
                                               const std::vector<int>& examined,
                                               bool pcie_unsafe);

}  // namespace peergate::policy::doctor
