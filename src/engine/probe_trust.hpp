// SPDX-License-Identifier: Apache-2.0
// A probe's pass held to what the gate trusts (docs/probe.md, "What a pass means"): exit 0
// only where the gate's verdict cache would vouch for every pair under every profile. The
// gate's rules decide what it trusts (policy::gate::passed_pairs_for); this words the gap. Pure.
#pragma once

#include "model/probe_result.hpp"

#include <string>
#include <utility>
#include <vector>

namespace peergate::engine {

// What the gate makes of a run, as the probe needs it to word an untrusted pass.
struct GateTrust {
    // The paths a pass must cover for every profile (policy::gate::paths_needed of `all`).
    std::vector<model::ProbePath> paths_needed;
    // The ordered pairs of the run the gate would not vouch for under every profile.
    std::vector<std::pair<int, int>> untrusted;
    // The profiles ("llama.cpp", ...) under which it would vouch for every pair of the run.
    std::vector<std::string> trusted_for;
};

// A pass with untrusted pairs becomes inconclusive (exit 2): its reason keeps what the run
// found and says what it lacked (the load, a path, a peer mapping) and what the gate needs.
// Any other result, and a pass the gate trusts, is returned as it is.
model::ProbeResult held_to_gate_trust(model::ProbeResult result, const GateTrust& trust);

}  // namespace peergate::engine
