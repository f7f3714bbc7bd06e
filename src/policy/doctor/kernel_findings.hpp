// SPDX-License-Identifier: Apache-2.0
// What kernel log events mean for peer-to-peer on this machine. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/kernel_event.hpp"
#include "model/topology.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace peergate::policy::doctor {

// One finding per event group. IOMMU faults raised by a GPU of `topology` are errors (the
// IOMMU is rejecting that GPU's DMA: the silent-drop signature); faults of other devices
// are info. Xids carry their documented meaning; GPUs are named by nvidia-smi index when
// the bus id matches one (Xid lines omit the PCI function).
// kernel_log_truncated (info) where a piped log was longer than peergate keeps: the bytes
// before its newest part were read and dropped, so their events are not reported (issue 34).
std::optional<model::Finding> kernel_log_truncated(std::uint64_t dropped_bytes);

// `through` (gpus_through in pcie_aer.hpp) ties a PCIe AER report on a port to the GPUs
// below it: an AER storm on the root port above GPU 3 is a finding on GPU 3.
std::vector<model::Finding> kernel_findings(
    const std::vector<model::KernelEvent>& events,
    const model::Topology* topology,
    const std::map<model::PciAddress, std::vector<int>>& through = {});

}  // namespace peergate::policy::doctor
