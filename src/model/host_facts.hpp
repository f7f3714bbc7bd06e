// SPDX-License-Identifier: Apache-2.0
// Facts about the host that change what P2P means: the IOMMU and whether we are a guest; and
// what GPUDirect RDMA needs from it: a peer-memory module, or the open kernel module (DMA-BUF).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace peergate::model {

// docs/gate-rules.md §5: no groups -> off; any group not of identity type -> translating.
enum class IommuMode { off, identity, translating, unknown };

// "off", "identity", "translating", "unknown": the peergate.gate/v1 "iommu" values.
std::string_view to_string(IommuMode mode);

// The two flavours of the NVIDIA kernel modules: only the open one exports GPU memory as
// DMA-BUF (NVIDIA's README, "Open Linux Kernel Modules"), GPUDirect RDMA's path without a
// peer-memory module.
enum class KernelModuleFlavour { open, proprietary };

// "open", "proprietary".
std::string_view to_string(KernelModuleFlavour flavour);

// The running nvidia.ko as /proc/driver/nvidia/version names it (not the one installed on
// disk, which a driver upgrade without a reboot leaves different).
struct NvidiaKernelModule {
    KernelModuleFlavour flavour = KernelModuleFlavour::proprietary;
    std::string version;  // "580.95.05"

    friend bool operator==(const NvidiaKernelModule&, const NvidiaKernelModule&) = default;
};

// Whether a kernel release ("6.8.0-49-generic", "5.14.0-427.el9.x86_64") is at least
// major.minor; nullopt when it does not start with two numbers.
std::optional<bool> kernel_at_least(std::string_view release, int major, int minor);

struct HostFacts {
    IommuMode iommu = IommuMode::unknown;
    std::string iommu_detail;        // e.g. "12 groups, first non-identity: group 3 is DMA-FQ"
    std::optional<bool> hypervisor;  // the cpuinfo "hypervisor" flag; nullopt when unreadable
    std::string kernel_cmdline;      // /proc/cmdline, trimmed; empty when unreadable
    std::string boot_id;             // /proc/sys/kernel/random/boot_id
    // The GPUDirect RDMA peer-memory module loaded: "nvidia_peermem", "nv_peer_mem", or ""
    // for none; nullopt when /sys/module cannot be read.
    std::optional<std::string> peer_memory_module;
    // /proc/driver/nvidia/version; nullopt when absent (no driver loaded) or not understood.
    std::optional<NvidiaKernelModule> nvidia_module;
    std::string kernel_release;  // /proc/sys/kernel/osrelease, e.g. "6.8.0-49-generic"; "" unread
};

// Whether PCIe peer copies between GPUs can be silently dropped on this host (docs/gate-rules.md
// §5): the one answer the doctor, the gate's words and every drawing give.
enum class SilentDropRisk { present, absent, unknown };

// What the answer rests on.
enum class SilentDropBasis {
    translating_bare_metal,  // present: a translating IOMMU, cpuinfo read, no hypervisor flag
    iommu_off,               // absent: no IOMMU groups
    iommu_identity,          // absent: every group passes DMA through (iommu=pt)
    guest,                   // absent: the hypervisor flag is set (the known drop is bare metal)
    iommu_unknown,           // unknown: the IOMMU's mode could not be read
    hypervisor_unknown,      // unknown: the IOMMU translates and cpuinfo could not be read
};

struct SilentDropAssessment {
    SilentDropRisk risk = SilentDropRisk::unknown;
    SilentDropBasis basis = SilentDropBasis::iommu_unknown;

    // Present or unknown: a reader must not count on PCIe peer copies here.
    bool not_ruled_out() const { return risk != SilentDropRisk::absent; }

    friend bool operator==(const SilentDropAssessment&, const SilentDropAssessment&) = default;
};

SilentDropAssessment silent_drop_risk(const HostFacts& host);

}  // namespace peergate::model
