// SPDX-License-Identifier: Apache-2.0
// `fleet merge|run --html FILE`: the cluster as one self-contained page (no script). The
// verdict and the issues first, then the majority every node is compared with, one row per
// node (verdict, one-verdict state, P2P, GPUs, IOMMU, driver, kernel) with each property that
// differs from the majority marked, and each node's findings one click away (anchors).
// docs/fleet.md, "HTML".
#pragma once

#include "policy/fleet/fleet.hpp"

#include <string>

namespace peergate::report::fleet {

std::string fleet_to_html(const policy::fleet::FleetReport& report);

// The anchor of a node's section: its name with every character outside [A-Za-z0-9_.-]
// replaced by '_', after "node-".
std::string node_anchor(const std::string& node);

}  // namespace peergate::report::fleet
