// SPDX-License-Identifier: Apache-2.0
#include "pipeline/assess_machine.hpp"

#include "pipeline/gate.hpp"

#include <utility>

namespace peergate::pipeline {

namespace {

// The gate's decision for the GPUs examined, on the topology the doctor read.
policy::doctor::GateOutcome gate_outcome(const Context& ctx,
                                         const DoctorOptions& options,
                                         const std::string& identity_helper,
                                         const model::Discovery& discovery) {
    auto request = parse_gate_request(options.gpus, "all");
    if (!request) {
        return {.p2p = false, .rule = "usage_error", .reason = request.error().message};
    }
    request->identity_helper = identity_helper;
    const auto decision =
        decide_safely([&] { return gate_input_from(discovery, ctx.seams, ctx.env, *request); },
                      ctx.env,
                      *request);
    return {.p2p = decision.p2p,
            .rule = decision.rule,
            .reason = decision.reason,
            .node = decision.node};
}

}  // namespace

util::Expected<MachineAssessment> assess_machine(const Context& ctx,
                                                 const DoctorOptions& options,
                                                 const std::string& identity_helper) {
    auto input = gather_doctor_input(ctx, options);
    if (!input) {
        return util::unexpected(input.error());
    }
    MachineAssessment out{.input = std::move(*input)};
    out.report = policy::doctor::diagnose(out.input);
    out.gate = gate_outcome(ctx, options, identity_helper, out.input.discovery);
    out.assessment = policy::assess::assess(out.input, out.report, out.gate);
    return out;
}

}  // namespace peergate::pipeline
