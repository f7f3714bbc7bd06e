// SPDX-License-Identifier: Apache-2.0
// The NCCL topology file a job will read, checked against the host. A <gpu> that lists
// <nvlink>s stops NCCL from asking NVML, so a file written while a link was up (a dump
// reused across a fleet, a cloud image's file after a bridge failed) still shows NCCL an
// NVLink path: NCCL then treats the pair as NVLinked, NCCL_P2P_LEVEL=NVL lets its P2P
// transport through, and the driver carries that traffic over PCIe.
#pragma once

#include "policy/gate/rules.hpp"

#include <optional>
#include <string>

namespace peergate::policy::gate {

// The first selected pair the file shows NCCL as NVLinked that the matrix does not:
// "GPU 0 to GPU 1 is SYS"; nullopt when there is none, or no file was read.
std::optional<std::string> stale_nvlink_claim(const GateFacts& facts);

// Where the file is and who named it: "/etc/nccl/topo.xml (NCCL_TOPO_FILE)".
std::string nccl_topo_file_name(const model::NcclTopoFile& file);

}  // namespace peergate::policy::gate
