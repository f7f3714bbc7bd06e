// SPDX-License-Identifier: Apache-2.0
// `peergate place` as text: one block per group with its bottleneck link, NUMA nodes and
// launch lines, then what is left over and how far the answer is from the bound.
#pragma once

#include "model/topology.hpp"
#include "policy/placement/nic_affinity.hpp"
#include "policy/placement/placement.hpp"

#include <optional>
#include <string>

namespace peergate::report::placement {

// `nics` as for placement_to_json: a "nics:" line per group where sysfs was read.
std::string placement_to_text(
    const policy::placement::PlacementResult& result,
    const model::Topology& topology,
    const std::string& profile,
    const std::optional<policy::placement::NicAffinity>& nics = std::nullopt);

}  // namespace peergate::report::placement
