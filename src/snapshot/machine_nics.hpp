// SPDX-License-Identifier: Apache-2.0
// A machine file's "nics": the host's network functions as sysfs shows them, each
// {"pci_bus_id": "0000:07:00.0", "class": "0x020700", "vendor": "0x15b3", "device": "0x101b",
//  "numa_node": 0, "upstream_ports": [...], "pcie_link": {...},
//  "rdma_devices": ["mlx5_0"], "interfaces": ["ibp7s0"], "physfn": "0000:07:00.0"};
// ports as for a GPU; physfn only for an SR-IOV virtual function.
#pragma once

#include "snapshot/machine_file.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace peergate::snapshot {

// "0x020700": sysfs's class text of a network function (base class 0x02).
bool network_class_text(const std::string& text);

// "0x15b3": a 16-bit PCI id as sysfs writes it.
bool pci_id_text(const std::string& text);

util::Expected<std::vector<MachineNic>> parse_nics(const nlohmann::json& doc);

nlohmann::ordered_json nics_to_json(const std::vector<MachineNic>& nics);

}  // namespace peergate::snapshot
