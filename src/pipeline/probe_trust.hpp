// SPDX-License-Identifier: Apache-2.0
// The probe's result held to the gate's standard (docs/probe.md, "What a pass means"): what
// policy::gate would make of it as this boot's verdict cache, under every profile.
#pragma once

#include "engine/probe_trust.hpp"
#include "model/probe_result.hpp"

namespace peergate::pipeline {

// The gate's reading of `result`: the paths every profile needs, the pairs it would not vouch
// for under all of them, and the profiles under which it would vouch for every pair.
engine::GateTrust gate_trust_of(const model::ProbeResult& result);

// engine::held_to_gate_trust with the gate's reading: a pass the gate would not trust for every
// profile is inconclusive.
model::ProbeResult held_to_gate_trust(model::ProbeResult result);

}  // namespace peergate::pipeline
