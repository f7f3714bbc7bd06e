// SPDX-License-Identifier: Apache-2.0
// The public gate API (include/peergate/gate.hpp) over the gate pipeline.
#include "cli/gate_pipeline.hpp"
#include "cli/module_location.hpp"
#include "cli/seams_resolver.hpp"
#include "peergate/gate.hpp"

namespace peergate {

GateDecision decide(const GateInput& input) {
    return policy::decide(input);
}

GateDecision apply(EnvMap& env, const ApplyOptions& options) {
    // The identity join's helper is the peergate executable installed with the library.
    const cli::GateRequest request{.selection = options.selection,
                                   .profile = options.profile,
                                   .identity_helper = cli::installed_peergate()};
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
    // inv.env, not env: under PEERGATE_SIMULATE it also names the machine for the simulated
    // nvidia-smi and the identity helper, which run as children (as the C API does).
    auto decision = cli::decide_for_host(inv.seams, inv.env, request);
    decision.apply_to(env);
    return decision;
}

}  // namespace peergate
