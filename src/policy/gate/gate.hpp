// SPDX-License-Identifier: Apache-2.0
// The P2P gate: one pure function from the facts of a launch to its decision.
#pragma once

#include "policy/gate/types.hpp"

namespace peergate::policy::gate {

// Decides whether P2P may flow between the selected GPUs and plans the child's
// environment for input.profile. Pure: reads only `input`.
GateDecision decide(const GateInput& input);

// The decision when deciding itself failed (a source threw, an input could not be
// gathered): the off-value strip and the pinning of an explicit selection still happen,
// P2P is vetoed with `reason`, and the launch goes on. `input` carries env, selection, profile.
GateDecision failed_decision(GateInput input, const std::string& reason);

}  // namespace peergate::policy::gate
