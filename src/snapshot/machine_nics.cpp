// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_nics.hpp"

#include "snapshot/machine_aer.hpp"
#include "snapshot/machine_json.hpp"
#include "snapshot/machine_pcie_link.hpp"
#include "snapshot/machine_ports.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::snapshot {

namespace {

using machine_json::get_or;
using machine_json::invalid;
using Json = nlohmann::json;

// A name the kernel gives a device in sysfs: a directory name, so no '/' and not "." or "..".
bool sysfs_name(const std::string& name) {
    return !name.empty() && name.size() <= 64 && name != "." && name != ".." &&
           name.find_first_of("/ \t\n") == std::string::npos;
}

util::Expected<std::vector<std::string>> parse_names(const Json& j,
                                                     const char* key,
                                                     const std::string& where) {
    const Json list = j.value(key, Json::array());
    if (!list.is_array()) {
        return invalid(fmt::format("{}.{}: a list of names is required", where, key));
    }
    std::vector<std::string> names;
    for (const auto& name : list) {
        if (!name.is_string() || !sysfs_name(name.get<std::string>())) {
            return invalid(fmt::format(
                "{}.{}: {} is not a device name as sysfs lists one", where, key, name.dump()));
        }
        names.push_back(name.get<std::string>());
    }
    std::sort(names.begin(), names.end());
    return names;
}

util::Expected<MachineNic> parse_nic(const Json& j, const std::string& where) {
    auto pci = machine_json::pci_field(j.value("pci_bus_id", Json()), where + ".pci_bus_id");
    if (!pci) {
        return util::unexpected(pci.error());
    }
    MachineNic nic{.pci = *pci};
    nic.pci_class = get_or<std::string>(j, "class", nic.pci_class);
    nic.vendor = get_or<std::string>(j, "vendor", nic.vendor);
    nic.device = get_or<std::string>(j, "device", nic.device);
    if (!network_class_text(nic.pci_class)) {
        return invalid(where + ".class: '" + nic.pci_class + "' is not a network class (0x02....)");
    }
    if (!pci_id_text(nic.vendor) || !pci_id_text(nic.device)) {
        return invalid(where + ": vendor and device are 16-bit ids such as \"0x15b3\"");
    }
    if (j.contains("numa_node") && !j["numa_node"].is_null()) {
        nic.numa_node = j["numa_node"].get<int>();
    }
    PEERGATE_TRY(machine_json::take(parse_upstream_ports(j, where), nic.upstream_ports));
    PEERGATE_TRY(machine_json::take(parse_pcie_link(j, where), nic.pcie_link));
    PEERGATE_TRY(machine_json::take(parse_aer(j, where), nic.aer));
    PEERGATE_TRY(machine_json::take(parse_names(j, "rdma_devices", where), nic.rdma_devices));
    PEERGATE_TRY(machine_json::take(parse_names(j, "interfaces", where), nic.interfaces));
    if (j.contains("physfn") && !j["physfn"].is_null()) {
        auto parent = machine_json::pci_field(j["physfn"], where + ".physfn");
        if (!parent || *parent == nic.pci) {
            return invalid(where + ".physfn: the PCI bus id of another function, its physical one");
        }
        nic.physfn = *parent;
    }
    return nic;
}

}  // namespace

bool network_class_text(const std::string& text) {
    return text.size() == 8 && text.starts_with("0x02") &&
           util::parse_hex<std::uint32_t>(std::string_view(text).substr(2)).has_value();
}

bool pci_id_text(const std::string& text) {
    return text.size() == 6 && text.starts_with("0x") &&
           util::parse_hex<std::uint16_t>(std::string_view(text).substr(2)).has_value();
}

util::Expected<std::vector<MachineNic>> parse_nics(const Json& doc) {
    std::vector<MachineNic> nics;
    const Json list = doc.value("nics", Json::array());
    for (std::size_t k = 0; k < list.size(); ++k) {
        auto nic = parse_nic(list[k], fmt::format("nics[{}]", k));
        if (!nic) {
            return util::unexpected(nic.error());
        }
        if (std::any_of(nics.begin(), nics.end(), [&](const MachineNic& listed) {
                return listed.pci == nic->pci;
            })) {
            return invalid(
                fmt::format("nics[{}].pci_bus_id: {} is listed twice", k, nic->pci.to_sysfs()));
        }
        nics.push_back(std::move(*nic));
    }
    return nics;
}

nlohmann::ordered_json nics_to_json(const std::vector<MachineNic>& nics) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& nic : nics) {
        nlohmann::ordered_json j{
            {"pci_bus_id", nic.pci.to_sysfs()},
            {"class", nic.pci_class},
            {"vendor", nic.vendor},
            {"device", nic.device},
            {"numa_node", nic.numa_node ? nlohmann::ordered_json(*nic.numa_node) : nullptr}};
        if (!nic.upstream_ports.empty()) {
            j["upstream_ports"] = upstream_ports_to_json(nic.upstream_ports);
        }
        if (nic.pcie_link) {
            j["pcie_link"] = pcie_link_to_json(*nic.pcie_link);
        }
        if (nic.aer) {
            j["aer"] = aer_to_json(*nic.aer);
        }
        if (!nic.rdma_devices.empty()) {
            j["rdma_devices"] = nic.rdma_devices;
        }
        if (!nic.interfaces.empty()) {
            j["interfaces"] = nic.interfaces;
        }
        if (nic.physfn) {
            j["physfn"] = nic.physfn->to_sysfs();
        }
        out.push_back(j);
    }
    return out;
}

}  // namespace peergate::snapshot
