// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_ports.hpp"

#include "snapshot/machine_aer.hpp"
#include "snapshot/machine_json.hpp"
#include "snapshot/machine_pcie_link.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <set>

namespace peergate::snapshot {

namespace {

using machine_json::invalid;

// "0x001d" (or "001d") -> 0x001d.
util::Expected<std::uint16_t> acs_word(const std::string& text, const std::string& where) {
    const std::string_view digits = std::string_view(text).substr(text.starts_with("0x") ? 2 : 0);
    const auto value = util::parse_hex<std::uint16_t>(digits);
    if (!value || digits.empty() || digits.size() > 4) {
        return invalid(where + ": '" + text + "' is not a 16-bit hex word such as 0x001d");
    }
    return *value;
}

// The port's sysfs ids by their machine-file keys (as sysfs names the files).
template <typename Port>
auto port_ids(Port& port) {
    using Text = decltype(&port.vendor);
    return std::array<std::pair<const char*, Text>, 4>{
        {{"vendor", &port.vendor},
         {"device", &port.device},
         {"subsystem_vendor", &port.subsystem_vendor},
         {"subsystem_device", &port.subsystem_device}}};
}

}  // namespace

util::Expected<std::vector<MachinePort>> parse_upstream_ports(const nlohmann::json& gpu,
                                                              const std::string& where) {
    std::vector<MachinePort> ports;
    for (std::size_t k = 0; gpu.contains("upstream_ports") && k < gpu["upstream_ports"].size();
         ++k) {
        const auto& j = gpu["upstream_ports"][k];
        const std::string at = fmt::format("{}.upstream_ports[{}]", where, k);
        auto pci = machine_json::pci_field(j.value("pci", nlohmann::json()), at + ".pci");
        if (!pci) {
            return util::unexpected(pci.error());
        }
        MachinePort port{.pci = *pci};
        if (j.value("acs_control", std::string()) == "unknown") {
            port.acs_unread = true;
        } else if (j.contains("acs_control")) {
            auto word = acs_word(j["acs_control"].get<std::string>(), at + ".acs_control");
            if (!word) {
                return util::unexpected(word.error());
            }
            port.acs_control = *word;
        }
        PEERGATE_TRY(machine_json::take(parse_pcie_link(j, at), port.pcie_link));
        PEERGATE_TRY(machine_json::take(parse_aer(j, at), port.aer));
        for (const auto& [key, into] : port_ids(port)) {
            *into = machine_json::get_or<std::string>(j, key, "");
        }
        ports.push_back(port);
    }
    return ports;
}

nlohmann::ordered_json upstream_ports_to_json(const std::vector<MachinePort>& ports) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& port : ports) {
        nlohmann::ordered_json j{{"pci", port.pci.to_sysfs()}};
        if (port.acs_control) {
            j["acs_control"] = fmt::format("0x{:04x}", *port.acs_control);
        } else if (port.acs_unread) {
            j["acs_control"] = "unknown";
        }
        if (port.pcie_link) {
            j["pcie_link"] = pcie_link_to_json(*port.pcie_link);
        }
        if (port.aer) {
            j["aer"] = aer_to_json(*port.aer);
        }
        for (const auto& [key, value] : port_ids(port)) {
            if (!value->empty()) {
                j[key] = *value;
            }
        }
        out.push_back(j);
    }
    return out;
}

namespace {

// One device with the ports above it, named as the error should name it.
struct PortOwner {
    std::string name;
    model::PciAddress pci;
    const std::vector<MachinePort>* ports;
};

util::Expected<void> check_port(const MachinePort& port, const MachinePort& first) {
    if (first.acs_control != port.acs_control && !port.acs_unread) {
        return invalid(
            fmt::format("port {} has two different acs_control values", port.pci.to_sysfs()));
    }
    if (first.pcie_link && port.pcie_link && first.pcie_link != port.pcie_link) {
        return invalid(
            fmt::format("port {} has two different pcie_link values", port.pci.to_sysfs()));
    }
    if (first.aer && port.aer && first.aer != port.aer) {
        return invalid(fmt::format("port {} has two different aer values", port.pci.to_sysfs()));
    }
    const auto ids = port_ids(port);
    const auto first_ids = port_ids(first);
    for (std::size_t k = 0; k < ids.size(); ++k) {
        if (!ids[k].second->empty() && !first_ids[k].second->empty() &&
            *ids[k].second != *first_ids[k].second) {
            return invalid(fmt::format(
                "port {} has two different {} values", port.pci.to_sysfs(), ids[k].first));
        }
    }
    return {};
}

}  // namespace

util::Expected<void> check_shared_ports(const std::vector<MachineGpu>& gpus,
                                        const std::vector<MachineNic>& nics) {
    std::vector<PortOwner> owners;
    for (const auto& gpu : gpus) {
        owners.push_back({fmt::format("gpus[index {}]", gpu.index), gpu.pci, &gpu.upstream_ports});
    }
    for (std::size_t k = 0; k < nics.size(); ++k) {
        owners.push_back({fmt::format("nics[{}]", k), nics[k].pci, &nics[k].upstream_ports});
    }
    std::map<model::PciAddress, const MachinePort*> seen;
    for (const auto& owner : owners) {
        std::set<model::PciAddress> own;
        for (const auto& port : *owner.ports) {
            if (!own.insert(port.pci).second || port.pci == owner.pci) {
                return invalid(fmt::format(
                    "{}.upstream_ports: port {} listed twice", owner.name, port.pci.to_sysfs()));
            }
            const auto [it, added] = seen.emplace(port.pci, &port);
            if (!added) {
                PEERGATE_TRY(check_port(port, *it->second));
            }
        }
    }
    return {};
}

}  // namespace peergate::snapshot
