// SPDX-License-Identifier: Apache-2.0
// Facts about the host that change what P2P means: the IOMMU and whether we are a guest.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace peergate::model {

// GATE-SPEC.md §5: no groups -> off; any group not of identity type -> translating.
enum class IommuMode { off, identity, translating, unknown };

// "off", "identity", "translating", "unknown": the peergate.gate/v1 "iommu" values.
std::string_view to_string(IommuMode mode);

struct HostFacts {
    IommuMode iommu = IommuMode::unknown;
    std::string iommu_detail;        // e.g. "12 groups, first non-identity: group 3 is DMA-FQ"
    std::optional<bool> hypervisor;  // the cpuinfo "hypervisor" flag; nullopt when unreadable
    std::string kernel_cmdline;      // /proc/cmdline, trimmed; empty when unreadable
    std::string boot_id;             // /proc/sys/kernel/random/boot_id
    // The GPUDirect RDMA peer-memory module loaded: "nvidia_peermem", "nv_peer_mem", or ""
    // for none; nullopt when /sys/module cannot be read.
    std::optional<std::string> peer_memory_module;
};

}  // namespace peergate::model
