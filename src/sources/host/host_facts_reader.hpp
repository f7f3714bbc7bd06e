// SPDX-License-Identifier: Apache-2.0
// Reads HostFacts under a host root: IOMMU groups, cpuinfo's hypervisor flag, cmdline, boot id.
#pragma once

#include "model/host_facts.hpp"
#include "sources/host/host_root.hpp"

namespace peergate::sources::host {

// IOMMU mode from /sys/kernel/iommu_groups/*/type (GATE-SPEC.md §5).
model::IommuMode read_iommu_mode(const HostRoot& root, std::string* detail = nullptr);

// True when /proc/cpuinfo's flags carry "hypervisor"; nullopt when unreadable.
std::optional<bool> read_hypervisor_flag(const HostRoot& root);

model::HostFacts read_host_facts(const HostRoot& root);

}  // namespace peergate::sources::host
