// SPDX-License-Identifier: Apache-2.0
#include "pipeline/gather_pci.hpp"

#include "snapshot/machine_aer.hpp"
#include "snapshot/machine_nics.hpp"
#include "sources/host/aer_stats.hpp"
#include "sources/host/network_devices.hpp"
#include "sources/host/pci_attributes.hpp"
#include "sources/host/pci_tree.hpp"

#include <fmt/format.h>

namespace peergate::pipeline {

namespace {

// A function's link as sysfs shows it; nullopt where it shows none (no PCIe capability, or
// no sysfs at all).
std::optional<snapshot::MachinePcieLink> recorded_link(const model::PciAttributes& read) {
    snapshot::MachinePcieLink link{.max_speed = read.max_link_speed,
                                   .max_width = read.max_link_width,
                                   .current_speed = read.current_link_speed,
                                   .current_width = read.current_link_width};
    if (link == snapshot::MachinePcieLink{}) {
        return std::nullopt;
    }
    return link;
}

// A function's AER counters, the named ones above zero only; nullopt where AER is off.
std::optional<model::PciAer> recorded_aer(const sources::host::HostRoot& root,
                                          const model::PciAddress& address) {
    auto aer = sources::host::read_aer(root, address);
    return aer ? std::optional(snapshot::canonical_aer(std::move(*aer))) : std::nullopt;
}

// A port as sysfs shows it, with the ids export nccl-topo writes for a switch.
snapshot::MachinePort recorded_port(const sources::host::HostRoot& root,
                                    const model::PciPort& port) {
    const auto read = sources::host::read_pci_attributes(root, port.address);
    return snapshot::MachinePort{
        .pci = port.address,
        .acs_control = port.acs ? std::optional(port.acs->bits) : std::nullopt,
        .acs_unread = !port.unread.empty(),
        .pcie_link = recorded_link(read),
        .aer = recorded_aer(root, port.address),
        .vendor = read.vendor,
        .device = read.device,
        .subsystem_vendor = read.subsystem_vendor,
        .subsystem_device = read.subsystem_device};
}

}  // namespace

std::size_t record_gpu_pci(const sources::host::HostRoot& root, snapshot::MachineGpu& gpu) {
    gpu.pcie_link = recorded_link(sources::host::read_pci_attributes(root, gpu.pci));
    gpu.aer = recorded_aer(root, gpu.pci);
    const auto ports = sources::host::ports_above(root, gpu.pci);
    if (!ports) {
        return 0;  // not in sysfs (a container without /sys): nothing to record
    }
    std::size_t unread = 0;
    gpu.upstream_ports.clear();
    for (const auto& port : *ports) {
        gpu.upstream_ports.push_back(recorded_port(root, port));
        unread += port.unread.empty() ? 0U : 1U;
    }
    return unread;
}

std::vector<std::string> record_nics(const sources::host::HostRoot& root,
                                     std::vector<snapshot::MachineNic>& nics) {
    std::vector<std::string> notes;
    nics.clear();
    for (const auto& found : sources::host::read_nics(root)) {
        const auto& path = found.path;
        const auto read = sources::host::read_pci_attributes(root, path.device);
        // The machine file's own checks: a NIC it would refuse to read back is not written.
        if (!snapshot::network_class_text(read.pci_class) || !snapshot::pci_id_text(read.vendor) ||
            !snapshot::pci_id_text(read.device)) {
            notes.push_back(
                fmt::format("network function {} not recorded: sysfs gave no class, "
                            "vendor or device id",
                            path.device.to_sysfs()));
            continue;
        }
        snapshot::MachineNic nic{.pci = path.device,
                                 .pci_class = read.pci_class,
                                 .vendor = read.vendor,
                                 .device = read.device,
                                 .numa_node = found.numa_node,
                                 .pcie_link = recorded_link(read),
                                 .aer = recorded_aer(root, path.device),
                                 .rdma_devices = found.rdma_devices,
                                 .interfaces = found.interfaces,
                                 .physfn = found.physical_function};
        for (const auto& port : path.ports) {
            nic.upstream_ports.push_back(recorded_port(root, port));
        }
        nics.push_back(std::move(nic));
    }
    return notes;
}

}  // namespace peergate::pipeline
