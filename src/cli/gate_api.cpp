// SPDX-License-Identifier: Apache-2.0
// The public gate API (include/peergate/gate.hpp) over the gate pipeline.
#include "cli/gate_pipeline.hpp"
#include "cli/launch_place.hpp"
#include "cli/module_location.hpp"
#include "cli/seams_resolver.hpp"
#include "peergate/gate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace peergate {

GateDecision decide(const GateInput& input) {
    return policy::decide(input);
}

namespace {

// A veto for `selection` that names why no decision could be made.
GateDecision failed(EnvMap& env,
                    const ApplyOptions& options,
                    Selection selection,
                    const std::string& reason) {
    policy::GateInput input;
    input.env = env;
    input.selection = std::move(selection);
    input.profile = options.profile;
    auto decision = policy::failed_decision(std::move(input), reason);
    decision.apply_to(env);
    return decision;
}

// The selection as a --gpus text (nullopt: inherited).
std::optional<std::string> selection_text(const Selection& selection) {
    switch (selection.kind) {
        case Selection::Kind::inherit:
            return std::nullopt;
        case Selection::Kind::all:
            return "all";
        case Selection::Kind::list:
            break;
    }
    return fmt::format("{}", fmt::join(selection.ids, ","));
}

// options.selection, or with options.place the best group among it (gate --place).
util::Expected<Selection> launch_selection(const cli::Invocation& inv,
                                           const ApplyOptions& options) {
    if (options.place == 0) {
        return options.selection;
    }
    auto placed = cli::place_launch(inv,
                                    selection_text(options.selection),
                                    options.place,
                                    std::string(policy::to_string(options.profile)),
                                    cli::installed_peergate());
    return placed ? Selection::parse(placed->gpus) : util::unexpected(placed.error());
}

}  // namespace

GateDecision apply(EnvMap& env, const ApplyOptions& options) {
    cli::Invocation inv;
    inv.env = env;
    inv.output.quiet = true;  // a library prints nothing
    if (auto resolved = cli::resolve_seams(inv); !resolved) {
        return failed(env, options, options.selection, resolved.error().message);
    }
    const auto selection = launch_selection(inv, options);
    if (!selection) {
        return failed(env, options, options.selection, selection.error().message);
    }
    // The identity join's helper is the peergate executable installed with the library.
    const cli::GateRequest request{.selection = *selection,
                                   .profile = options.profile,
                                   .identity_helper = cli::installed_peergate()};
    // inv.env, not env: under PEERGATE_SIMULATE it also names the machine for the simulated
    // nvidia-smi and the identity helper, which run as children (as the C API does).
    auto decision = cli::decide_for_host(inv.seams, inv.env, request);
    decision.apply_to(env);
    return decision;
}

}  // namespace peergate
