// SPDX-License-Identifier: Apache-2.0
// How far each NIC is from each GPU, in the classes of nvidia-smi's legend, from where sysfs
// puts them in the PCIe tree: NCCL's GPUDirect RDMA and its NIC choice follow the same
// distances (NCCL_NET_GDR_LEVEL counts in them). nvidia-smi prints a NIC's row but NVML
// answers only between GPUs, so the classes are worked out here. Pure.
#pragma once

#include "model/link_label.hpp"
#include "model/nic.hpp"
#include "model/pci_port.hpp"
#include "model/topology.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace peergate::policy::placement {

// A PCI function's place: the ports above it (nearest first, as sysfs lists them) and its
// NUMA node (nullopt where sysfs names none).
struct PciPlace {
    model::PciPath path;
    std::optional<int> numa_node;
};

// The class of the path between two functions: PIX when one PCIe switch joins them, PXB when
// several do below one root port, PHB when they meet only at the host bridge (one root bus),
// NODE across host bridges of one NUMA node (or where sysfs names no node for either: a host
// without NUMA), SYS across NUMA nodes; unknown where one node is named and the other not.
model::LinkLabel pci_path_label(const PciPlace& a, const PciPlace& b);

struct NicAffinity {
    std::vector<model::Nic> nics;                       // in bus order
    std::vector<std::vector<model::LinkLabel>> labels;  // labels[nic][gpu position]
    // Read from nvidia-smi's topo -m instead of sysfs: the NICs are in column order, and
    // their bus ids, ports and NUMA nodes are unknown (the text names none); only the RDMA
    // device (from the NIC Legend or a column named by it) and the labels are known.
    bool from_text = false;
};

// `gpus` by topology position; nullopt for a GPU sysfs does not show (a container without
// /sys, a GPU without a bus id), whose labels are unknown.
NicAffinity nic_affinity(const std::vector<std::optional<PciPlace>>& gpus,
                         std::vector<model::Nic> nics);

// The NICs nvidia-smi printed beside the GPUs (`topology.nics`), with the labels it printed:
// a saved topo -m says where each NIC is without the host's sysfs (docs/gate-rules.md §3 tier 2).
NicAffinity nic_affinity_from_text(const model::Topology& topology);

// The physical NICs closest to the GPU at `position` (several where they tie), in bus order;
// none when no NIC's class is known. SR-IOV virtual functions are left out: each sits where
// its physical function does.
std::vector<std::size_t> nearest_nics(const NicAffinity& affinity, std::size_t position);

}  // namespace peergate::policy::placement
