// SPDX-License-Identifier: Apache-2.0
// One GPU as the host sees it. Every field that a source may not know is optional.
#pragma once

#include "model/pci_address.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::model {

struct Gpu {
    int index = 0;                  // nvidia-smi / NVML index (PCI bus order)
    std::string name;               // "NVIDIA B200"; empty when unknown
    std::optional<PciAddress> pci;  // bus id
    std::string uuid;               // "GPU-..."; empty when unknown
    std::optional<int> numa_node;   // host NUMA node nearest the GPU
    std::string cpu_affinity;       // "0-47,96-143"; empty when unknown

    friend bool operator==(const Gpu&, const Gpu&) = default;
};

// The GPU with nvidia-smi index `index` in `gpus`, or nullptr.
const Gpu* find_gpu(const std::vector<Gpu>& gpus, int index);

// "GPU 3", "GPUs 0,1,5": GPU indices as findings and messages name them.
std::string gpu_words(const std::vector<int>& indices);

}  // namespace peergate::model
