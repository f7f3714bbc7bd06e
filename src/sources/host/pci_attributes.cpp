// SPDX-License-Identifier: Apache-2.0
#include "sources/host/pci_attributes.hpp"

#include "util/strings.hpp"

namespace peergate::sources::host {

model::PciAttributes read_pci_attributes(const HostRoot& root, const model::PciAddress& address) {
    const std::string dir = "/sys/bus/pci/devices/" + address.to_sysfs() + "/";
    const auto text = [&](const char* name) {
        const auto value = root.read_text(dir + name);
        return value ? std::string(util::trim(*value)) : std::string();
    };
    const auto number = [&](const char* name) -> std::optional<int> {
        return util::parse_int<int>(text(name));
    };
    return model::PciAttributes{.pci_class = text("class"),
                                .vendor = text("vendor"),
                                .device = text("device"),
                                .subsystem_vendor = text("subsystem_vendor"),
                                .subsystem_device = text("subsystem_device"),
                                .max_link_speed = text("max_link_speed"),
                                .max_link_width = number("max_link_width"),
                                .current_link_speed = text("current_link_speed"),
                                .current_link_width = number("current_link_width"),
                                .numa_node = number("numa_node")};
}

}  // namespace peergate::sources::host
