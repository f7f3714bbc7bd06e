// SPDX-License-Identifier: Apache-2.0
// The P2P verdict as an ordered list of small, named, pure rules (docs/gate-rules.md §2's
// precedence, strongest first): DISABLE_P2P, DISABLE_TUNING, decision failures, the
// data-center name gate, more than one GPU, the user's opt-out, the probe verdict,
// FORCE_P2P, the NVLink name gate, the matrix, the index-space guards, every pair NV#.
// The off-value strip precedes them all; it is an environment action (gate_env_plan).
#pragma once

#include "policy/gate/facts.hpp"

#include <string>

namespace peergate::policy::gate {

struct P2pVerdict {
    bool p2p = false;
    std::string rule;    // stable snake_case id
    std::string reason;  // the veto (suffix included), or what allowed P2P
};

// Runs the rules in order; the first that answers decides. Never fails: the last rule
// always answers.
P2pVerdict decide_p2p(const GateFacts& facts);

}  // namespace peergate::policy::gate
