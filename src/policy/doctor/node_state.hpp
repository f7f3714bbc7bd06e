// SPDX-License-Identifier: Apache-2.0
// The node's one verdict for schedulers, which every export (NFD `node.state`, Prometheus
// `peergate_node_state`) and the fleet share (docs/export.md, "What the node's state means"):
//   p2p-allowed  GPU jobs can start, and the gate allows P2P among the GPUs examined;
//   p2p-vetoed   GPU jobs can start, with P2P off (peergate exec sets that up);
//   unusable     no CUDA program can start here: the driver is missing or refuses to
//                initialise (an NVSwitch fabric not registered, a driver/module mismatch).
// The doctor's verdict says whether anything is wrong; this says what may be scheduled. Pure.
#pragma once

#include "policy/doctor/doctor.hpp"
#include "policy/gate/types.hpp"

#include <string>
#include <string_view>

namespace peergate::policy::doctor {

enum class NodeState { p2p_allowed, p2p_vetoed, unusable };

struct NodeVerdict {
    NodeState state = NodeState::unusable;
    std::string code;    // why: the gate's rule, or the finding that makes the node unusable
    std::string reason;  // the same in words
};

// What the gate decided for the GPUs examined: P2P allowed or not, by which rule and why.
struct GateOutcome {
    bool p2p = false;
    std::string rule;
    std::string reason;
    // The gate's word on whether any CUDA program can start (GateDecision::node): where not,
    // its rule and reason.
    gate::NodeUsability node;
};

// The node's verdict from the doctor's report and the gate's decision on the same read.
NodeVerdict node_verdict(const DoctorReport& report, const GateOutcome& gate);

// "p2p-allowed", "p2p-vetoed", "unusable": NFD label values (docs/export.md).
std::string_view to_string(NodeState state);

// Whether GPU jobs can start at all (p2p-allowed or p2p-vetoed).
bool usable(NodeState state);

}  // namespace peergate::policy::doctor
