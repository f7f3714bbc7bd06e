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

// Where the IOMMU translates and cpuinfo could not say whether this is bare metal.
inline constexpr const char* kIommuUnknownHostSuffix =
    "; a translating IOMMU on a host that may be bare metal (cpuinfo unreadable), where PCIe "
    "peer copies can be silently dropped";

// True on bare metal (cpuinfo read, no hypervisor flag) with a translating IOMMU: the host's
// silent-drop risk (model::silent_drop_risk) is present.
bool bare_metal_translating(const model::HostFacts& host);

// The suffix for a veto that implies a PCIe path, from the host's silent-drop risk: present,
// kIommuSuffix; unknown because the hypervisor flag could not be read, kIommuUnknownHostSuffix;
// "" otherwise (a guest, an IOMMU off or passing DMA through, or its mode unread).
std::string iommu_suffix(const model::HostFacts& host);

// "GPU 0 to GPU 1 is NODE, not NVLink".
std::string pair_veto(int a, int b, const model::LinkLabel& label);

// "0, 1, 3".
std::string id_list(const std::vector<int>& ids);

}  // namespace peergate::policy::gate
