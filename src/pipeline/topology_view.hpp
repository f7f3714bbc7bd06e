// SPDX-License-Identifier: Apache-2.0
// `peergate topo` as a use case: the topology the tiers (or a saved file) give, and the NICs
// sysfs shows beside it. The command line prints it; the C API returns it as JSON.
#pragma once

#include "model/discovery.hpp"
#include "pipeline/context.hpp"
#include "policy/placement/nic_affinity.hpp"

#include <optional>
#include <string>

namespace peergate::pipeline {

struct TopologyView {
    model::Discovery discovery;  // described() is null when unreadable, with the reason
    // The NICs under the host root, or those nvidia-smi's topo -m printed where sysfs shows
    // none; nullopt for a saved file without NICs (no sysfs: unknown, not absent) or an
    // unreadable topology.
    std::optional<policy::placement::NicAffinity> nics;
};

// `source`: "auto", "nvml" or "smi"; `from`: a saved `nvidia-smi topo -m` text or machine
// file instead of the host ("": the host).
TopologyView view_topology(const Context& ctx,
                           const std::string& source,
                           bool crosscheck,
                           const std::string& from = "");

}  // namespace peergate::pipeline
