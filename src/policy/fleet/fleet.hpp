// SPDX-License-Identifier: Apache-2.0
// The fleet's verdict: which nodes failed (unhealthy, inconclusive, missing, unreadable) and
// which differ from what most of their peers report (GPU count, model, topology, NICs, P2P,
// IOMMU, peergate version, driver, kernel). A node that lost an NVLink still passes its own checks;
// only its peers show it. Pure.
#pragma once

#include "model/fleet_node.hpp"
#include "policy/fleet/fleet_bandwidth.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::policy::fleet {

struct FleetIssue {
    std::string code;      // node_problems, node_inconclusive, nodes_missing, record_unreadable,
                           // node_repeated, fleet_outlier, fleet_split, fleet_bandwidth_outlier
    std::string severity;  // "error", "warning"
    std::vector<std::string> nodes;
    std::string message;
};

// What more than half of the readable nodes report, per property ("" where none has a majority).
struct FleetMajority {
    std::string gpus;
    std::string gpu_model;
    std::vector<std::vector<std::string>> matrix;
    std::string topology;  // the matrix as one string (rows joined by ';')
    std::string p2p;       // "allowed", "vetoed"
    std::string iommu;
    std::string version;
    std::string driver;                 // the running NVIDIA kernel module's version
    std::string kernel;                 // the kernel release
    std::string nics;                   // the NICs as one string ("none" for none)
    std::vector<std::string> nic_list;  // the same, one entry per NIC
};

struct FleetNodeView {
    model::FleetNode node;
    std::vector<std::string> differs;  // properties where it is not the majority
};

struct FleetReport {
    bool failed = false;               // exit 1: an error among the issues
    std::vector<FleetNodeView> nodes;  // by node name
    FleetMajority majority;
    std::vector<FleetIssue> issues;
    std::vector<FleetLinkClass> bandwidth;  // link classes the nodes measured; empty: none
};

// `expected`: how many nodes should have answered (--nodes), if known.
FleetReport judge_fleet(std::vector<model::FleetNode> nodes,
                        const std::vector<std::string>& unreadable,
                        std::optional<int> expected);

// A node's property as judge_fleet compares it ("gpus", "gpu_model", "topology", "p2p",
// "iommu", "version", "driver", "kernel", "nics"); "" where the node did not read it.
std::string fleet_property(const model::FleetNode& node, const std::string& property);

}  // namespace peergate::policy::fleet
