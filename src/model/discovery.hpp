// SPDX-License-Identifier: Apache-2.0
// What the topology tiers answered: plain values that the renderers and the gate read.
#pragma once

#include "model/topology.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::model {

// What one tier said: a topology, or why it gave none.
struct TierAttempt {
    std::string tier;  // "nvml" or "nvidia-smi"
    std::optional<Topology> topology;
    std::string reason;                // why there is no topology; empty when there is one
    std::optional<Topology> lone_gpu;  // the tier saw exactly one GPU: 1x1, not a verdict
};

// NVLinked pairs (a < b) on which the two tiers disagree.
struct CrossCheck {
    std::vector<std::pair<int, int>> nvml_only;  // the dangerous direction
    std::vector<std::pair<int, int>> smi_only;

    bool agree() const { return nvml_only.empty() && smi_only.empty(); }
};

struct Discovery {
    std::optional<Topology> topology;      // the answer in force
    std::string reason;                    // why there is none; empty when there is one
    std::vector<TierAttempt> attempts;     // every tier tried, in order
    std::optional<CrossCheck> crosscheck;  // when both tiers ran and answered
    // A machine of one GPU has no pair, so no tier gives it a matrix and the gate has no
    // verdict to read; the GPU is still described here, for topo, doctor and place.
    std::optional<Topology> lone_gpu;

    // The machine as the describing commands show it: the matrix in force, else the lone
    // GPU. Never for P2P decisions: those read `topology` alone.
    const Topology* described() const {
        return topology ? &*topology : lone_gpu ? &*lone_gpu : nullptr;
    }
};

}  // namespace peergate::model
