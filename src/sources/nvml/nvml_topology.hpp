// SPDX-License-Identifier: Apache-2.0
// Tier 1 of docs/gate-rules.md §3: the whole interconnect matrix from NVML, with the same
// tokens as nvidia-smi topo -m, or no verdict with the reason. Never a partial matrix.
#pragma once

#include "model/topology.hpp"
#include "sources/nvml/nvml_calls.hpp"

#include <optional>

namespace peergate::nvml {

// How NVML's NVLink P2P status for one ordered pair reads.
enum class NvlinkStatus { linked, denied };

// What one NVLink P2P status value says: 0 linked; 1-5 denied; nullopt for 6 (UNKNOWN)
// and any value a newer driver adds, which are not denials.
std::optional<NvlinkStatus> read_nvlink_status(nvmlGpuP2PStatus_t status);

// nvidia-smi's token for a common-ancestor level; nullopt for a level NVML does not document.
std::optional<model::LinkLabel> label_for_ancestor(nvmlGpuTopologyLevel_t level);

// Status 0 is linked; 1-5 (chipset/GPU/IOH topology not supported, disabled by regkey,
// not supported) are definite denials; 6 (UNKNOWN) or any value a newer driver adds is
// no verdict, as is a failed call.
util::Expected<NvlinkStatus> nvlink_status(NvmlCalls& nvml, nvmlDevice_t a, nvmlDevice_t b);

// The PCIe path class from the common-ancestor level: INTERNAL/SINGLE -> PIX,
// MULTIPLE -> PXB, HOSTBRIDGE -> PHB, NODE -> NODE, SYSTEM -> SYS; other levels: error.
util::Expected<model::LinkLabel> pcie_label(NvmlCalls& nvml, nvmlDevice_t a, nvmlDevice_t b);

// Reads every GPU and every ordered pair; source nvml, provenance empty (the caller
// knows the library). Fewer than 2 GPUs, a failed call, an UNKNOWN status or a
// contradiction (linked with no active link to the peer or a switch) is an error. When
// NVML sees exactly one GPU, that GPU is still described in *lone_gpu (when given): a
// 1x1 matrix that is no P2P verdict, for the commands that describe the machine.
util::Expected<model::Topology> read_nvml_topology(
    NvmlCalls& nvml, std::optional<model::Topology>* lone_gpu = nullptr);

}  // namespace peergate::nvml
