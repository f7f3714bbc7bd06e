// SPDX-License-Identifier: Apache-2.0
#include "cli/gate_command.hpp"

#include "cli/option_checks.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/identity_join.hpp"

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
    return pipeline::decide_for_host(inv.seams, inv.env, *request, gathered);
}

}  // namespace peergate::cli
