// SPDX-License-Identifier: Apache-2.0
#include "sources/host/pci_tree.hpp"

#include "sources/host/acs.hpp"

#include <filesystem>
#include <system_error>

namespace peergate::sources::host {

namespace {

namespace fs = std::filesystem;

model::PciPort read_port(const HostRoot& root, const model::PciAddress& address) {
    model::PciPort port{.address = address};
    const auto config = root.read_text("/sys/bus/pci/devices/" + address.to_sysfs() + "/config");
    if (!config) {
        port.unread = config.error().message;
        return port;
    }
    auto acs = parse_acs_control(*config);
    if (!acs) {
        port.unread = address.to_sysfs() + ": " + acs.error().message;
    } else {
        port.acs = *acs;
    }
    return port;
}

}  // namespace

util::Expected<std::vector<model::PciPort>> ports_above(const HostRoot& root,
                                                        const model::PciAddress& device) {
    const std::string link = "/sys/bus/pci/devices/" + device.to_sysfs();
    std::error_code ec;
    const fs::path real = fs::canonical(root.resolve(link), ec);
    if (ec) {
        return util::unexpected(util::ErrorCode::unavailable, link + ": " + ec.message());
    }
    std::vector<model::PciPort> ports;
    for (fs::path dir = real.parent_path(); dir.has_filename(); dir = dir.parent_path()) {
        const auto address = model::PciAddress::parse(dir.filename().string());
        if (!address) {
            break;  // the root bus (pci0000:40), past the last port
        }
        ports.push_back(read_port(root, *address));
    }
    return ports;
}

}  // namespace peergate::sources::host
