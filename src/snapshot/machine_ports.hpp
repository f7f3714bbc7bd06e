// SPDX-License-Identifier: Apache-2.0
// A GPU's "upstream_ports" in a machine file: the PCIe ports above it, nearest first, each
// {"pci": "0000:40:01.1", "acs_control": "0x001d"} (no acs_control: no ACS capability;
// "unknown": recorded by a gather that could not read it).
// A port shared by several GPUs (a switch's upstream port) must read the same in each.
#pragma once

#include "snapshot/machine_file.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace peergate::snapshot {

util::Expected<std::vector<MachinePort>> parse_upstream_ports(const nlohmann::json& gpu,
                                                              const std::string& where);

nlohmann::ordered_json upstream_ports_to_json(const std::vector<MachinePort>& ports);

// Every port listed by more than one GPU or NIC reads the same in each (ACS control word,
// link, AER counters), and none lists a port twice; the error names the port.
util::Expected<void> check_shared_ports(const std::vector<MachineGpu>& gpus,
                                        const std::vector<MachineNic>& nics);

}  // namespace peergate::snapshot
