// SPDX-License-Identifier: Apache-2.0
#include "cli/gate_command.hpp"

#include "cli/option_checks.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/identity_join.hpp"
#include "report/gate/render.hpp"

#include <fmt/format.h>

namespace peergate::cli {

void add_place_option(CLI::App* sub, int& place) {
    sub->add_option("--place",
                    place,
                    "the best K GPUs (among --gpus, else among those an inherited "
                    "CUDA_VISIBLE_DEVICES exposes), as 'peergate place --size K --count 1' picks "
                    "them: the strongest weakest link, then the most bandwidth inside the group, "
                    "then the fewest NUMA nodes")
        ->check(whole_number(1, 4096));
}

std::optional<std::string> gpus_given(const CLI::Option* gpus_option, const std::string& gpus) {
    // The Option tells "--gpus ''" (an error) from no --gpus at all (the inherited mask).
    return gpus_option->count() > 0 ? std::optional<std::string>(gpus) : std::nullopt;
}

util::EnvMap child_environment(const Invocation& inv, const policy::gate::GateDecision* decision) {
    util::EnvMap env = inv.env;
    if (!inv.seams.simulated_machine.empty()) {
        env.unset("PEERGATE_SIM_MACHINE");
    }
    if (decision != nullptr) {
        decision->apply_to(env);
    }
    return env;
}

std::optional<policy::gate::GateDecision> decide_for_command(const Invocation& inv,
                                                             const std::optional<std::string>& gpus,
                                                             const std::string& profile,
                                                             policy::gate::GateInput* gathered,
                                                             std::vector<std::string> child_argv) {
    auto request = pipeline::parse_gate_request(gpus, profile);
    if (!request) {
        print_error(inv.output, request.error().message);
        return std::nullopt;
    }
    request->identity_helper =
        pipeline::self_executable();  // runs `cuda-visible` for the identity join
    request->child_argv = std::move(child_argv);
    auto decision = pipeline::decide_for_launch(inv.seams, inv.env, *request, gathered);
    if (!decision) {
        // Only an explicit list can name a GPU the host lacks (pipeline/gate.hpp).
        print_error(inv.output, "--gpus: " + decision.error().message);
        return std::nullopt;
    }
    return std::move(*decision);
}

void add_even_if_unusable_flag(CLI::App* sub, bool& even_if_unusable) {
    sub->add_flag("--even-if-unusable",
                  even_if_unusable,
                  "start CMD even where no CUDA program can start (the CUDA driver loads and "
                  "does not initialise: NVSwitch fabric not ready, driver and kernel module "
                  "versions differ); P2P stays off");
}

bool command_may_start(const Invocation& inv,
                       const policy::gate::GateDecision& decision,
                       const std::string& program,
                       bool even_if_unusable) {
    if (decision.node.usable || even_if_unusable) {
        return true;
    }
    print_error(inv.output,
                fmt::format("'{}' not started: {} [rule {}]; --even-if-unusable starts it anyway, "
                            "with P2P off",
                            program,
                            decision.node.reason,
                            decision.node.rule));
    return false;
}

void log_decision(const Invocation& inv, const policy::gate::GateDecision& decision) {
    if (inv.output.quiet) {
        return;
    }
    fmt::print(inv.output.err, "peergate: {}\n", report::gate::gate_to_log_line(decision));
    for (const auto& warning : decision.warnings) {
        fmt::print(inv.output.err, "peergate: warning: {}\n", warning);
    }
    if (!decision.node.usable) {
        fmt::print(inv.output.err,
                   "peergate: warning: no CUDA program can start here [rule {}]; the command "
                   "starts anyway (--even-if-unusable)\n",
                   decision.node.rule);
    }
}

}  // namespace peergate::cli
