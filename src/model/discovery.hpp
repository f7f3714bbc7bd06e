// SPDX-License-Identifier: Apache-2.0
// What the topology tiers answered: plain values that the renderers and the gate read.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/topology.hpp"

namespace peergate::model {

// What one tier said: a topology, or why it gave none.
struct TierAttempt {
    std::string tier;  // "nvml" or "nvidia-smi"
    std::optional<Topology> topology;
    std::string reason;  // why there is no topology; empty when there is one
};

// NVLinked pairs (a < b) on which the two tiers disagree.
struct CrossCheck {
    std::vector<std::pair<int, int>> nvml_only;  // the dangerous direction
    std::vector<std::pair<int, int>> smi_only;
    bool agree() const { return nvml_only.empty() && smi_only.empty(); }
};

struct Discovery {
    std::optional<Topology> topology;   // the answer in force
    std::string reason;                 // why there is none; empty when there is one
    std::vector<TierAttempt> attempts;  // every tier tried, in order
    std::optional<CrossCheck> crosscheck;  // when both tiers ran and answered
};

}  // namespace peergate::model
