// SPDX-License-Identifier: Apache-2.0
// Reads HostFacts under a host root: IOMMU groups, cpuinfo's hypervisor flag, cmdline, boot id,
// the GPUDirect RDMA peer-memory module, the NVIDIA kernel module and the kernel's release.
#pragma once

#include "model/host_facts.hpp"
#include "sources/host/host_root.hpp"

namespace peergate::sources::host {

// IOMMU mode from /sys/kernel/iommu_groups/*/type (docs/gate-rules.md §5).
model::IommuMode read_iommu_mode(const HostRoot& root, std::string* detail = nullptr);

// True when /proc/cpuinfo's flags carry "hypervisor"; nullopt when unreadable.
std::optional<bool> read_hypervisor_flag(const HostRoot& root);

// The peer-memory module loaded, where NCCL looks for it: /sys/module/nvidia_peermem (the
// driver's nvidia-peermem), /sys/kernel/mm/memory_peers/nv_mem/version (MLNX_OFED's
// nv_peer_mem); "" for neither; nullopt when /sys/module is not there to say.
std::optional<std::string> read_peer_memory_module(const HostRoot& root);

model::HostFacts read_host_facts(const HostRoot& root);

}  // namespace peergate::sources::host
