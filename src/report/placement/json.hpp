// SPDX-License-Identifier: Apache-2.0
// `peergate place --json` (peergate.placement/v1): the groups, each group's bottleneck link
// and NUMA nodes, and how to launch on it.
#pragma once

#include "model/topology.hpp"
#include "policy/placement/nic_affinity.hpp"
#include "policy/placement/placement.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace peergate::report::placement {

// `nics`: each NIC's class of path to each GPU of `topology` (nullopt where sysfs was not
// read, a saved file): the JSON gains topology/v1's "nics" and "nearest_nics", and each group
// its members' nearest NICs.
nlohmann::ordered_json placement_to_json(
    const policy::placement::PlacementResult& result,
    const model::Topology& topology,
    const std::string& profile,
    const std::optional<policy::placement::NicAffinity>& nics = std::nullopt);

}  // namespace peergate::report::placement
