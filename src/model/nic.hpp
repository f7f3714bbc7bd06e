// SPDX-License-Identifier: Apache-2.0
// A network function as the host's sysfs shows it: where it sits in the PCIe tree, and the
// names NCCL's settings use for it.
#pragma once

#include "model/pci_port.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::model {

struct Nic {
    PciPath path;  // the card's first network function and the ports above it, nearest first
    std::optional<int> numa_node;  // nullopt where sysfs names none (-1)
    // The kernel's names for it, sorted: its RDMA devices (sysfs infiniband/, "mlx5_0", as
    // NCCL_IB_HCA names it) and its network interfaces (net/, "ibp24s0" or "ens1f0np0", as
    // NCCL_SOCKET_IFNAME names it). Empty where it has none.
    std::vector<std::string> rdma_devices;
    std::vector<std::string> interfaces;
    // An SR-IOV virtual function's physical function (sysfs's physfn); nullopt for a physical
    // one. A virtual function sits where its physical function does.
    std::optional<PciAddress> physical_function;

    friend bool operator==(const Nic&, const Nic&) = default;
};

}  // namespace peergate::model
