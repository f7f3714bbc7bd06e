// SPDX-License-Identifier: Apache-2.0
// One node's answer in a fleet run (`peergate fleet node`, one JSON line per node).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace peergate::model {

struct FleetFinding {
    std::string code;
    std::string severity;  // "error", "warning", "info"
    std::string message;
};

// One ordered pair's rates as the node's `peergate bench` result gave them (fleet node
// --bandwidth FILE), with the pair's topology token: the link class fleet compares across nodes.
struct FleetPairRate {
    int src = 0;
    int dst = 0;
    std::string link;  // "NV18", "PIX", "SYS"
    double p2p_gbps = 0;
    std::optional<double> staged_gbps;

    friend bool operator==(const FleetPairRate&, const FleetPairRate&) = default;
};

struct FleetNode {
    std::string node;      // SLURMD_NODENAME, else the host name
    std::string hostname;  // gethostname()
    std::string source;    // where the line was read: "all.jsonl:3"
    std::string version;   // peergate's
    std::string verdict;   // the doctor's: healthy, problems, inconclusive
    bool p2p = false;      // the gate's answer for every GPU of the node
    std::string rule;      // the rule that decided
    // The node's one verdict (policy/doctor/node_state.hpp): p2p-allowed, p2p-vetoed or
    // unusable; "" in a record from a peergate that did not write it.
    std::string state;
    std::string iommu;   // translating, identity, off, unknown
    std::string driver;  // the running NVIDIA kernel module's version; "" when unread
    std::string kernel;  // the kernel release; "" when unread
    // Per NIC by bus: "0000:18:00.0 mlx5_0", or "0000:18:00.0 (no RDMA device)" (a NIC whose
    // driver did not come up looks so); nullopt where not read (older records, no sysfs).
    std::optional<std::vector<std::string>> nics;
    std::vector<std::string> gpu_names;            // by nvidia-smi index
    std::vector<std::vector<std::string>> matrix;  // topo -m tokens; empty: unreadable
    std::vector<FleetFinding> findings;            // the doctor's
    std::vector<FleetPairRate> bandwidth;          // measured pairs; empty: none given
};

}  // namespace peergate::model
