// SPDX-License-Identifier: Apache-2.0
// `peergate place` as a use case: the best groups of K GPUs on the host's (or a saved)
// topology, optionally weighed by a measured bench, with the NICs near each group. The
// command line prints it; the C API returns it as peergate.placement/v1.
#pragma once

#include "model/topology.hpp"
#include "pipeline/context.hpp"
#include "policy/placement/nic_affinity.hpp"
#include "policy/placement/placement.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>

namespace peergate::pipeline {

struct PlacementQuery {
    int size = 0;                        // GPUs per group (K)
    std::optional<int> count;            // groups (G); nullopt: as many as fit
    std::string gpus = "all";            // candidates: an index list or "all"
    std::optional<std::string> require;  // GPUs that must share the first group
    std::string bandwidth;               // a peergate.bench/v1 file; "": weigh by topology labels
    std::string from;                    // a saved topology; "": the host's tiers
    std::string source = "auto";
};

struct Placement {
    model::Topology topology;
    policy::placement::PlacementResult result;
    std::optional<policy::placement::NicAffinity> nics;  // nullopt for a saved file
};

// Errors say what was wrong: the topology unreadable, a bad list, an unreadable bench
// file, an impossible request (K x G more than the candidates).
util::Expected<Placement> place_groups(const Context& ctx, const PlacementQuery& query);

}  // namespace peergate::pipeline
