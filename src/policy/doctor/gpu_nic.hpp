// SPDX-License-Identifier: Apache-2.0
// GPUs and network functions below one PCIe switch: GPUDirect RDMA between them (NCCL's
// GDR, the NIC reading and writing GPU memory) stays inside the switch, unless ACS redirect
// on a port between them sends it up to the root complex and its IOMMU, where NCCL's
// troubleshooting guide sees it slow down or hang. The same rule as two GPUs (doctor_acs).
// Pure.
#pragma once

#include "model/finding.hpp"
#include "model/pci_port.hpp"
#include "policy/doctor/acs.hpp"
#include "policy/doctor/doctor.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace peergate::policy::doctor {

struct GpuNicPath {
    int gpu = 0;
    model::PciAddress nic;
    AcsPath path;  // never not_shared: GPU and NIC meet below a switch port
};

// Each examined GPU with each NIC it shares a PCIe port with, by GPU then NIC.
std::vector<GpuNicPath> gpu_nic_paths(const DoctorInput& input);

// acs_redirect_nic (warning): the first GPU and NIC whose GPUDirect RDMA ACS sends up to the
// root complex, with the port and its control bits, and how many more.
std::optional<model::Finding> acs_redirect_nic_finding(const std::vector<GpuNicPath>& paths);

// gdr_no_peer_memory (info): GPUs share a PCIe switch with a NIC, but the host has no
// GPUDirect RDMA peer-memory module loaded (`host`'s read said none, not "unknown") and
// DMA-BUF cannot stand in: `dma_buf` (per GPU, CUDA's answer) says no or is missing for one
// of them, or the kernel predates 5.12. Nothing when DMA-BUF carries GPUDirect RDMA.
std::optional<model::Finding> peer_memory_finding(const std::vector<GpuNicPath>& paths,
                                                  const model::HostFacts& host,
                                                  const std::map<int, bool>& dma_buf);

// How a NIC can reach GPU memory on this host for GPUDirect RDMA: a peer-memory module is
// loaded; else DMA-BUF (every GPU whose CUDA driver answered says yes, on a kernel not known
// to predate 5.12); else none (no module, and the proprietary kernel module, an older
// kernel or a GPU's "no" rules DMA-BUF out); unknown when neither can be told.
enum class GdrMemory { peermem, dmabuf, none, unknown };

// "peermem", "dmabuf", "none", "unknown".
std::string_view to_string(GdrMemory memory);

GdrMemory gdr_memory(const model::HostFacts& host, const std::map<int, bool>& dma_buf);

}  // namespace peergate::policy::doctor
