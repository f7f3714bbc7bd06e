// SPDX-License-Identifier: Apache-2.0
// A PCI function's identity and link as sysfs gives them under the host root:
// /sys/bus/pci/devices/<bdf>/{class,vendor,device,subsystem_vendor,subsystem_device,
// max_link_speed,max_link_width,current_link_speed,current_link_width,numa_node}.
#pragma once

#include "model/pci_address.hpp"
#include "model/pci_attributes.hpp"
#include "sources/host/host_root.hpp"

namespace peergate::sources::host {

// Every attribute that could be read; one that is missing or unreadable stays empty (a port
// without a link has no max_link_speed, a host without NUMA may have no numa_node).
model::PciAttributes read_pci_attributes(const HostRoot& root, const model::PciAddress& address);

}  // namespace peergate::sources::host
