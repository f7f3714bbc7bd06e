// SPDX-License-Identifier: Apache-2.0
// The public gate API (include/peergate/gate.hpp) over the gate pipeline.
#include "cli/gate_pipeline.hpp"
#include "cli/seams_resolver.hpp"
#include "peergate/gate.hpp"

namespace peergate {

GateDecision decide(const GateInput& input) {
    return policy::decide(input);
}

GateDecision apply(EnvMap& env, const ApplyOptions& options) {
    const cli::GateRequest request{.selection = options.selection, .profile = options.profile};
    cli::Invocation inv;
    inv.env = env;
    if (auto resolved = cli::resolve_seams(inv); !resolved) {
        policy::GateInput input;
        input.env = env;
        input.selection = options.selection;
        input.profile = options.profile;
        auto decision = policy::failed_decision(std::move(input), resolved.error().message);
        decision.apply_to(env);
        return decision;
    }
    auto decision = cli::decide_for_host(inv.seams, env, request);
    decision.apply_to(env);
    return decision;
}

}  // namespace peergate
