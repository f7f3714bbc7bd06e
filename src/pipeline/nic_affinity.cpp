// SPDX-License-Identifier: Apache-2.0
#include "pipeline/nic_affinity.hpp"

#include "sources/host/network_devices.hpp"
#include "sources/host/pci_attributes.hpp"
#include "sources/host/pci_tree.hpp"

namespace peergate::pipeline {

namespace {

// Where sysfs puts a GPU; nullopt where it does not show it.
std::optional<policy::placement::PciPlace> gpu_place(const sources::host::HostRoot& root,
                                                     const model::Gpu& gpu) {
    if (!gpu.pci) {
        return std::nullopt;
    }
    auto ports = sources::host::ports_above(root, *gpu.pci);
    if (!ports) {
        return std::nullopt;
    }
    // sysfs's node, as the NIC's comes from sysfs too: NVML's may differ on hosts whose
    // firmware names no node (-1 in sysfs).
    return policy::placement::PciPlace{
        .path = {.device = *gpu.pci, .ports = std::move(*ports)},
        .numa_node = sources::host::read_pci_attributes(root, *gpu.pci).named_numa_node()};
}

}  // namespace

policy::placement::NicAffinity read_nic_affinity(const Context& ctx,
                                                 const model::Topology& topology) {
    const sources::host::HostRoot root(ctx.seams.host_root);
    auto nics = sources::host::read_nics(root);
    std::vector<std::optional<policy::placement::PciPlace>> gpus;
    for (const auto& gpu : topology.gpus) {
        gpus.push_back(nics.empty() ? std::nullopt : gpu_place(root, gpu));
    }
    return policy::placement::nic_affinity(gpus, std::move(nics));
}

}  // namespace peergate::pipeline
