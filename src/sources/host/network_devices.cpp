// SPDX-License-Identifier: Apache-2.0
#include "sources/host/network_devices.hpp"

#include "sources/host/pci_tree.hpp"
#include "util/strings.hpp"

namespace peergate::sources::host {

std::vector<model::PciPath> network_devices(const HostRoot& root) {
    std::vector<model::PciPath> out;
    const auto names = root.list("/sys/bus/pci/devices");
    if (!names) {
        return out;
    }
    for (const auto& name : *names) {
        const auto address = model::PciAddress::parse(name);
        if (!address || address->function != 0) {
            continue;
        }
        const auto pci_class = root.read_text("/sys/bus/pci/devices/" + name + "/class");
        if (!pci_class || !util::trim(*pci_class).starts_with("0x02")) {
            continue;
        }
        if (auto ports = ports_above(root, *address)) {
            out.push_back({.device = *address, .ports = std::move(*ports)});
        }
    }
    return out;
}

}  // namespace peergate::sources::host
