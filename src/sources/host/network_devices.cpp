// SPDX-License-Identifier: Apache-2.0
#include "sources/host/network_devices.hpp"

#include "sources/host/pci_attributes.hpp"
#include "sources/host/pci_tree.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace peergate::sources::host {

namespace {

// The entries of a function's class directory ("infiniband", "net"); none where it has none.
std::vector<std::string> class_names(const HostRoot& root,
                                     const model::PciAddress& address,
                                     const char* kind) {
    auto names = root.list("/sys/bus/pci/devices/" + address.to_sysfs() + "/" + kind);
    return names ? std::move(*names) : std::vector<std::string>{};
}

// Where an SR-IOV virtual function's physfn link points: "../0000:18:00.0".
std::optional<model::PciAddress> physical_function(const HostRoot& root,
                                                   const model::PciAddress& address) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(
        root.resolve("/sys/bus/pci/devices/" + address.to_sysfs() + "/physfn"), ec);
    if (ec) {
        return std::nullopt;
    }
    const auto parent = model::PciAddress::parse(target.filename().string());
    return parent ? std::optional(*parent) : std::nullopt;
}

// The physical NIC already listed for `address`'s device (another function of one card: the
// second port of a dual-port ConnectX), if any.
model::Nic* physical_card(std::vector<model::Nic>& nics, const model::PciAddress& address) {
    for (auto& nic : nics) {
        const auto& listed = nic.path.device;
        if (!nic.physical_function && listed.domain == address.domain &&
            listed.bus == address.bus && listed.device == address.device) {
            return &nic;
        }
    }
    return nullptr;
}

void merge_names(std::vector<std::string>& into, const std::vector<std::string>& names) {
    into.insert(into.end(), names.begin(), names.end());
    std::sort(into.begin(), into.end());
}

}  // namespace

std::vector<model::PciPath> network_devices(const HostRoot& root) {
    std::vector<model::PciPath> out;
    const auto names = root.list("/sys/bus/pci/devices");
    if (!names) {
        return out;
    }
    for (const auto& name : *names) {
        const auto address = model::PciAddress::parse(name);
        if (!address) {
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

std::vector<model::Nic> read_nics(const HostRoot& root) {
    std::vector<model::Nic> out;
    for (auto& path : network_devices(root)) {
        model::Nic nic{.path = path,
                       .numa_node = read_pci_attributes(root, path.device).named_numa_node(),
                       .rdma_devices = class_names(root, path.device, "infiniband"),
                       .interfaces = class_names(root, path.device, "net"),
                       .physical_function = physical_function(root, path.device)};
        if (auto* card = nic.physical_function ? nullptr : physical_card(out, path.device)) {
            merge_names(card->rdma_devices, nic.rdma_devices);
            merge_names(card->interfaces, nic.interfaces);
            continue;
        }
        out.push_back(std::move(nic));
    }
    return out;
}

}  // namespace peergate::sources::host
