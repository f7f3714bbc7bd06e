// SPDX-License-Identifier: Apache-2.0
// `peergate fleet`'s report: one row per node and the issues, or `peergate.fleet/v1`.
#pragma once

#include "policy/fleet/fleet.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace peergate::report::fleet {

nlohmann::ordered_json fleet_to_json(const policy::fleet::FleetReport& report);

std::string fleet_to_text(const policy::fleet::FleetReport& report);

// A node's matrix in a few words: its distinct link tokens ("NV18", "NV12/SYS"), "one GPU"
// or "unreadable".
std::string topology_summary(const std::vector<std::vector<std::string>>& matrix);

}  // namespace peergate::report::fleet
