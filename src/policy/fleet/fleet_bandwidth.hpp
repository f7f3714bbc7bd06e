// SPDX-License-Identifier: Apache-2.0
// Bandwidth across a fleet: the P2P rates the nodes' bench results measured, grouped by link
// class (the pair's topology token: NV18, PIX, SYS ...). A pair far below the fleet's median
// for its class is a link down or retraining, a PCIe link trained narrow, a port shared with
// other traffic, on a node whose own checks may all pass. docs/fleet.md, "Bandwidth". Pure.
#pragma once

#include "model/fleet_node.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace peergate::policy::fleet {

// One link class across the fleet.
struct FleetLinkClass {
    std::string link;
    double median_gbps = 0;
    std::size_t samples = 0;  // ordered pairs measured, over every node
    std::size_t nodes = 0;    // nodes that measured one
};

struct BandwidthOutlier {
    std::string node;
    std::string message;  // "node7: GPU0->GPU3 (NV18) 120.5 GB/s, under half the fleet's ..."
};

struct BandwidthJudgement {
    std::vector<FleetLinkClass> classes;  // by link token
    std::vector<BandwidthOutlier> outliers;
};

// Classes with at least four samples from at least two nodes are judged: a pair under half
// the class's median is an outlier, one message per node naming its pairs.
BandwidthJudgement judge_bandwidth(const std::vector<const model::FleetNode*>& nodes);

}  // namespace peergate::policy::fleet
