// SPDX-License-Identifier: Apache-2.0
// What a probe verdict is only valid for: this driver, these GPUs, this IOMMU mode and
// kernel command line, this boot. Any change (a driver update, a swapped card, iommu=pt
// added, a reboot) invalidates a cached verdict. vLLM keys its cache only by
// CUDA_VISIBLE_DEVICES, so its verdicts survive exactly the changes that matter.
#pragma once

#include <string>
#include <vector>

namespace peergate::model {

struct MachineIdentity {
    std::string driver_version;            // "cuda 12080" and, when known, the NVML driver string
    std::vector<std::string> gpu_uuids;    // by nvidia-smi index; "" where unknown
    std::vector<std::string> pci_bus_ids;  // NVML form, by nvidia-smi index
    std::string iommu;                     // "off", "identity", "translating", "unknown"
    std::string kernel_cmdline;
    std::string boot_id;

    friend bool operator==(const MachineIdentity&, const MachineIdentity&) = default;
};

// The names of the fields that differ ("boot_id", "iommu", ...), empty when the same.
std::vector<std::string> identity_differences(const MachineIdentity& cached,
                                              const MachineIdentity& now);

}  // namespace peergate::model
