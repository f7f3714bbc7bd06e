// SPDX-License-Identifier: Apache-2.0
// The silent-drop configuration as a finding: PCIe pairs the drop can hit on a host whose
// IOMMU translates (docs/gate-rules.md §5, docs/assessment.md "Per host"). Pure.
#pragma once

#include "model/finding.hpp"
#include "model/host_facts.hpp"
#include "model/topology.hpp"
#include "policy/doctor/doctor.hpp"

#include <optional>

namespace peergate::policy::doctor {

// Bare metal with a translating IOMMU, or a translating IOMMU where cpuinfo could not say
// whether this is bare metal.
bool pcie_copies_at_risk(const model::HostFacts& host);

// pcie_p2p_under_translating_iommu: an error, or a warning when a probe just now moved data
// over every such pair intact; nullopt where no examined PCIe pair is at risk.
std::optional<model::Finding> pcie_under_iommu(const DoctorInput& input,
                                               const model::Topology& topology);

}  // namespace peergate::policy::doctor
