// SPDX-License-Identifier: Apache-2.0
// The matrix as people read it: nvidia-smi's layout, NV# in green, PCIe classes in
// yellow/red on a colour terminal, then islands and NUMA affinity.
#pragma once

#include "model/discovery.hpp"
#include "policy/placement/nic_affinity.hpp"

#include <string>

namespace peergate::report::topology {

struct TextStyle {
    bool color = false;
    bool verbose = false;  // also list what each tier answered
};

std::string topology_to_text(const model::Discovery& discovery, const TextStyle& style);

// The NIC rows nvidia-smi topo -m adds, as a table of their own: each NIC's class of path to
// each GPU of `t`, its NUMA node and names, then each GPU's nearest NIC. Empty without NICs.
std::string nics_to_text(const policy::placement::NicAffinity& affinity,
                         const model::Topology& t,
                         const TextStyle& style);

// What NCCL_IB_HCA calls a NIC: its RDMA device, else its interface, else "NIC<n>".
std::string nic_short_name(const policy::placement::NicAffinity& affinity, std::size_t n);

// "GPU0 mlx5_0 (PIX)": the NICs nearest the GPU at `position` (nvidia-smi index `index`),
// ties joined by commas; "GPU0 ?" where no NIC's class to it is known.
std::string nearest_nic_text(const policy::placement::NicAffinity& affinity,
                             std::size_t position,
                             int index);

}  // namespace peergate::report::topology
