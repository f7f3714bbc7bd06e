// SPDX-License-Identifier: Apache-2.0
// The words of the gate: veto texts that name the pair and its label, and the IOMMU
// suffix of docs/gate-rules.md §5 (wording only, never the decision).
#pragma once

#include "model/host_facts.hpp"
#include "model/link_label.hpp"

#include <string>
#include <vector>

namespace peergate::policy::gate {

inline constexpr const char* kIommuSuffix =
    "; bare-metal Linux with a translating IOMMU, where CUDA does not support PCIe peer "
    "copies at all";

// True on bare metal (cpuinfo read, no hypervisor flag) with a translating IOMMU.
bool bare_metal_translating(const model::HostFacts& host);

// The suffix for a veto that implies a PCIe path, or "" (hypervisor, IOMMU not translating).
std::string iommu_suffix(const model::HostFacts& host);

// "GPU 0 to GPU 1 is NODE, not NVLink".
std::string pair_veto(int a, int b, const model::LinkLabel& label);

// "0, 1, 3".
std::string id_list(const std::vector<int>& ids);

}  // namespace peergate::policy::gate
