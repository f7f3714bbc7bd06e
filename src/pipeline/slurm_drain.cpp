// SPDX-License-Identifier: Apache-2.0
#include "pipeline/slurm_drain.hpp"

#include "sources/slurm/scontrol_node.hpp"
#include "sources/slurm/slurmd_config.hpp"
#include "util/strings.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <vector>

namespace peergate::pipeline {

namespace {

// Which slurm.conf scontrol read, for its errors: a failing health check must say where it
// looked (slurmd logs its stdout only).
std::string conf_note(const Scontrol& scontrol) {
    return scontrol.slurm_conf.empty()
               ? fmt::format(" (slurm.conf: scontrol's default, since {}; --slurm-conf names one)",
                             scontrol.why)
               : fmt::format(" (slurm.conf {}, from {})", scontrol.slurm_conf, scontrol.why);
}

util::Expected<std::string> run_scontrol(const Context& ctx,
                                         const Scontrol& scontrol,
                                         std::vector<std::string> args) {
    util::Command command;
    command.argv = {scontrol.program};
    command.argv.insert(command.argv.end(), args.begin(), args.end());
    command.env = ctx.env;
    if (!scontrol.slurm_conf.empty()) {
        command.env.set("SLURM_CONF", scontrol.slurm_conf);
    }
    command.timeout = std::chrono::seconds(10);
    const auto result = util::run_process(command);
    if (!result || !result->succeeded()) {
        return util::unexpected(
            util::ErrorCode::unavailable,
            fmt::format("{} {} failed: {}{}",
                        scontrol.program,
                        util::join(args, " "),
                        result ? std::string(util::trim(result->err + result->out))
                               : result.error().message,
                        conf_note(scontrol)));
    }
    return result->out;
}

}  // namespace

Scontrol choose_scontrol(const Context& ctx, std::string program, const std::string& option) {
    Scontrol scontrol{.program = std::move(program)};
    if (!option.empty()) {
        scontrol.slurm_conf = option;
        scontrol.why = "--slurm-conf";
    } else if (auto env = ctx.env.get("SLURM_CONF"); env && !env->empty()) {
        scontrol.slurm_conf = *env;
        scontrol.why = "SLURM_CONF";
    } else {
        // A HealthCheckProgram gets no SLURM_CONF: ask the slurmd that started us.
        auto parent = sources::slurm::slurmd_config_of(sources::slurm::read_process(::getppid()));
        scontrol.slurm_conf = parent.path.value_or("");
        scontrol.why = parent.why;
    }
    return scontrol;
}

util::Expected<policy::fleet::SlurmNodeDrain> read_node_drain(const Context& ctx,
                                                              const Scontrol& scontrol,
                                                              const std::string& node) {
    auto shown = run_scontrol(ctx, scontrol, {"show", "node", node});
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
                                       const Scontrol& scontrol,
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
    auto done = run_scontrol(ctx, scontrol, args);
    return done ? util::Expected<void>{} : util::unexpected(done.error());
}

}  // namespace peergate::pipeline
