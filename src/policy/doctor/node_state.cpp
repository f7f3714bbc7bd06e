// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/node_state.hpp"

#include "policy/gate/node_usability.hpp"

#include <algorithm>

namespace peergate::policy::doctor {

namespace {

// The first finding after which no CUDA program starts (docs/doctor.md): the catalogue's
// kNodeUnusable (no driver, a user-space driver that refuses the running kernel module, GPUs
// the NVSwitch fabric manager has not registered: cuInit then fails with
// CUDA_ERROR_SYSTEM_NOT_READY).
const model::Finding* unusable_finding(const DoctorReport& report) {
    const auto found = std::find_if(
        report.findings.begin(), report.findings.end(), [](const model::Finding& finding) {
            return finding.has(model::kNodeUnusable);
        });
    return found == report.findings.end() ? nullptr : &*found;
}

}  // namespace

NodeVerdict node_verdict(const DoctorReport& report, const GateOutcome& gate) {
    // The gate's own word that CUDA cannot start outranks a finding: it names the error.
    if (!gate.node.usable) {
        return {NodeState::unusable, gate.node.rule, gate.node.reason};
    }
    if (gate.rule ==
        gate::kCudaUnavailableRule) {  // a gate outcome read back without its node word
        return {NodeState::unusable, gate.rule, gate.reason};
    }
    if (const auto* finding = unusable_finding(report)) {
        return {NodeState::unusable, finding->id(), finding->message};
    }
    return {gate.p2p ? NodeState::p2p_allowed : NodeState::p2p_vetoed, gate.rule, gate.reason};
}

std::string_view to_string(NodeState state) {
    switch (state) {
        case NodeState::p2p_allowed:
            return "p2p-allowed";
        case NodeState::p2p_vetoed:
            return "p2p-vetoed";
        case NodeState::unusable:
            return "unusable";
    }
    return "unusable";
}

bool usable(NodeState state) {
    return state != NodeState::unusable;
}

}  // namespace peergate::policy::doctor
