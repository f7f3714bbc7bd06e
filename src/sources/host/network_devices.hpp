// SPDX-License-Identifier: Apache-2.0
// The host's network functions (PCI class 0x02: Ethernet 0x0200, InfiniBand 0x0207, ...) and
// the ports above each, from sysfs under the host root. NCCL merges the functions of one card
// (the ports of a dual-port ConnectX) into one device at function 0, and so does read_nics.
#pragma once

#include "model/nic.hpp"
#include "model/pci_port.hpp"
#include "sources/host/host_root.hpp"

#include <vector>

namespace peergate::sources::host {

// Every network function, in bus order; a function whose class or path cannot be read is left
// out.
std::vector<model::PciPath> network_devices(const HostRoot& root);

// One NIC per card (its lowest network function; the names of every physical function of
// the card) and one per SR-IOV virtual function, with its NUMA node, the kernel's names (the
// directories under each function's infiniband/ (RDMA devices) and net/ (interfaces)) and,
// for a virtual function, its physical function (where its physfn link points).
std::vector<model::Nic> read_nics(const HostRoot& root);

}  // namespace peergate::sources::host
