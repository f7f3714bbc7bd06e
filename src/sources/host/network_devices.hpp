// SPDX-License-Identifier: Apache-2.0
// The host's network functions (PCI class 0x02: Ethernet 0x0200, InfiniBand 0x0207, ...) and
// the ports above each, from sysfs under the host root. NCCL merges a NIC's functions into
// one device at function 0, so only function 0 of each device is listed.
#pragma once

#include "model/nic.hpp"
#include "model/pci_port.hpp"
#include "sources/host/host_root.hpp"

#include <vector>

namespace peergate::sources::host {

// In bus order; a function whose class or path cannot be read is left out.
std::vector<model::PciPath> network_devices(const HostRoot& root);

// The same functions with their NUMA node, the kernel's names for each (the directories under
// the function's infiniband/ (RDMA devices) and net/ (interfaces)) and, for an SR-IOV virtual
// function, its physical function (where its physfn link points).
std::vector<model::Nic> read_nics(const HostRoot& root);

}  // namespace peergate::sources::host
