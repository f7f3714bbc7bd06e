// SPDX-License-Identifier: Apache-2.0
// The public gate API (include/peergate/gate.hpp) over the gate pipeline: the public values
// are plain standard-library types, translated here to and from the policy's own.
#include "peergate/gate.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/launch_place.hpp"
#include "pipeline/module_location.hpp"
#include "pipeline/seams.hpp"
#include "report/gate/render.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace peergate {

namespace {

policy::gate::Profile policy_profile(Profile profile) {
    switch (profile) {
        case Profile::llama_cpp:
            return policy::gate::Profile::llama_cpp;
        case Profile::nccl:
            return policy::gate::Profile::nccl;
        case Profile::vllm:
            return policy::gate::Profile::vllm;
        case Profile::sglang:
            return policy::gate::Profile::sglang;
        case Profile::all:
            return policy::gate::Profile::all;
    }
    return policy::gate::Profile::llama_cpp;
}

Profile public_profile(policy::gate::Profile profile) {
    switch (profile) {
        case policy::gate::Profile::llama_cpp:
            return Profile::llama_cpp;
        case policy::gate::Profile::nccl:
            return Profile::nccl;
        case policy::gate::Profile::vllm:
            return Profile::vllm;
        case policy::gate::Profile::sglang:
            return Profile::sglang;
        case policy::gate::Profile::all:
            return Profile::all;
    }
    return Profile::llama_cpp;
}

policy::gate::Selection policy_selection(const Selection& selection) {
    switch (selection.kind) {
        case Selection::Kind::inherit:
            return policy::gate::Selection{};
        case Selection::Kind::all:
            return policy::gate::Selection::all();
        case Selection::Kind::list:
            break;
    }
    return policy::gate::Selection::list(selection.ids);
}

util::EnvMap env_map_of(const Environment& env) {
    util::EnvMap map;
    for (const auto& [name, value] : env) {
        map.set(name, value);
    }
    return map;
}

// The decision as the public value, and its plan applied to the caller's `env`.
GateDecision published(const policy::gate::GateDecision& d, Environment& env) {
    util::EnvMap applied = env_map_of(env);
    d.apply_to(applied);
    env = Environment(applied.entries().begin(), applied.entries().end());
    const auto doc = report::gate::gate_to_json(d);
    GateDecision out{.profile = public_profile(d.profile),
                     .selection = d.selection,
                     .selection_source = d.selection_source,
                     .p2p = d.p2p,
                     .veto = d.veto,
                     .rule = d.rule,
                     .reason = d.reason,
                     .warnings = d.warnings,
                     .topology_source = std::string(model::to_string(d.topology_source)),
                     .iommu = std::string(model::to_string(d.iommu)),
                     .json = doc.dump()};
    for (const auto& s : d.set) {
        out.set.push_back({s.name, s.value, s.reason});
    }
    for (const auto& r : d.unset) {
        out.unset.push_back({r.name, r.reason});
    }
    for (const auto& k : d.kept) {
        out.kept.push_back({k.name, k.value, k.reason});
    }
    return out;
}

// A veto for `selection` that names why no decision could be made.
GateDecision failed(Environment& env,
                    const ApplyOptions& options,
                    policy::gate::Selection selection,
                    const std::string& reason) {
    policy::gate::GateInput input;
    input.env = env_map_of(env);
    input.selection = std::move(selection);
    input.profile = policy_profile(options.profile);
    return published(policy::gate::failed_decision(std::move(input), reason), env);
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
util::Expected<policy::gate::Selection> launch_selection(const pipeline::Context& ctx,
                                                         const ApplyOptions& options) {
    if (options.place == 0) {
        return policy_selection(options.selection);
    }
    auto placed = pipeline::place_launch(ctx,
                                         selection_text(options.selection),
                                         options.place,
                                         std::string(to_string(policy_profile(options.profile))),
                                         pipeline::installed_peergate());
    return placed ? policy::gate::Selection::parse(placed->gpus) : util::unexpected(placed.error());
}

}  // namespace

GateDecision apply(Environment& env, const ApplyOptions& options) {
    pipeline::Context ctx;
    ctx.env = env_map_of(env);
    ctx.output.quiet = true;  // a library prints nothing
    if (auto resolved = pipeline::resolve_seams(ctx); !resolved) {
        return failed(env, options, policy_selection(options.selection), resolved.error().message);
    }
    const auto selection = launch_selection(ctx, options);
    if (!selection) {
        return failed(env, options, policy_selection(options.selection), selection.error().message);
    }
    // The identity join's helper is the peergate executable installed with the library.
    const pipeline::GateRequest request{.selection = *selection,
                                        .profile = policy_profile(options.profile),
                                        .identity_helper = pipeline::installed_peergate()};
    // ctx.env, not env: under PEERGATE_SIMULATE it also names the machine for the simulated
    // nvidia-smi and the identity helper, which run as children (as the C API does).
    return published(pipeline::decide_for_host(ctx.seams, ctx.env, request), env);
}

}  // namespace peergate
