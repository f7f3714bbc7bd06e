// SPDX-License-Identifier: Apache-2.0
// A GPU's or port's "pcie_link" in a machine file: its link as sysfs shows it,
// {"max_speed": "16.0 GT/s PCIe", "max_width": 16, "current_speed": "2.5 GT/s PCIe",
//  "current_width": 8}; each field optional.
#pragma once

#include "snapshot/machine_file.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace peergate::snapshot {

// The "pcie_link" of `owner` (a GPU or a port object), nullopt when it has none.
util::Expected<std::optional<MachinePcieLink>> parse_pcie_link(const nlohmann::json& owner,
                                                               const std::string& where);

nlohmann::ordered_json pcie_link_to_json(const MachinePcieLink& link);

}  // namespace peergate::snapshot
