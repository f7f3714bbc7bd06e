// SPDX-License-Identifier: Apache-2.0
#include "pipeline/slurm_drain.hpp"

#include "sources/slurm/scontrol_node.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

#include <chrono>
#include <vector>

namespace peergate::pipeline {

namespace {

util::Expected<std::string> scontrol(const Context& ctx,
                                     const std::string& program,
                                     std::vector<std::string> args) {
    util::Command command;
    command.argv = {program};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.env = ctx.env;
    command.timeout = std::chrono::seconds(10);
    const auto result = util::run_process(command);
    if (!result || !result->succeeded()) {
        return util::unexpected(
            util::ErrorCode::unavailable,
            fmt::format("{} {} failed: {}",
                        program,
                        util::join(args, " "),
                        result ? std::string(util::trim(result->err + result->out))
                               : result.error().message));
    }
    return result->out;
}

}  // namespace

util::Expected<policy::fleet::SlurmNodeDrain> read_node_drain(const Context& ctx,
                                                              const std::string& program,
                                                              const std::string& node) {
    auto shown = scontrol(ctx, program, {"show", "node", node});
    if (!shown) {
        return util::unexpected(shown.error());
    }
    const auto state = sources::slurm::parse_scontrol_node(*shown);
    if (!state) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "scontrol show node " + node + " printed no NodeName=");
    }
    return policy::fleet::SlurmNodeDrain{.draining = state->draining(), .reason = state->reason};
}

util::Expected<void> apply_health_plan(const Context& ctx,
                                       const std::string& program,
                                       const std::string& node,
                                       const policy::fleet::HealthPlan& plan) {
    if (plan.action == policy::fleet::SlurmAction::none) {
        return {};
    }
    std::vector<std::string> args = {"update", "NodeName=" + node};
    if (plan.action == policy::fleet::SlurmAction::drain) {
        args.insert(args.end(), {"State=DRAIN", "Reason=" + plan.reason});
    } else {
        args.emplace_back("State=RESUME");
    }
    auto done = scontrol(ctx, program, args);
    return done ? util::Expected<void>{} : util::unexpected(done.error());
}

}  // namespace peergate::pipeline
