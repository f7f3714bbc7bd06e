// SPDX-License-Identifier: Apache-2.0
// peergate gate: the P2P decision for a selection and the environment changes it implies.
#include "cli/commands.hpp"
#include "cli/gate_command.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/launch_place.hpp"
#include "report/gate/render.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

struct GateOptions {
    std::string gpus;
    CLI::Option* gpus_option = nullptr;  // to tell "--gpus ''" from no --gpus
    std::string profile = "llama.cpp";
    std::string format = "text";
    int place = 0;  // --place K: the best K GPUs (among --gpus) instead of --gpus itself
};

int run_gate(const Invocation& inv, const GateOptions& options) {
    const auto gpus = pipeline::launch_gpus(
        inv, gpus_given(options.gpus_option, options.gpus), options.place, options.profile);
    if (!gpus) {
        print_error(inv.output, gpus.error().message);
        return kExitError;
    }
    const auto decided = decide_for_command(inv, *gpus, options.profile);
    if (!decided) {
        return kExitError;
    }
    const auto& decision = *decided;
    const std::string format = inv.output.json ? "json" : options.format;
    if (format == "json") {
        fmt::print(inv.output.out, "{}\n", util::json_text(report::gate::gate_to_json(decision)));
    } else if (format == "shell") {
        fmt::print(inv.output.out, "{}", report::gate::gate_to_shell(decision));
    } else {
        fmt::print(inv.output.out, "{}", report::gate::gate_to_text(decision));
    }
    if (!decision.node.usable) {
        return kExitNodeUnusable;  // P2P is vetoed too, but no job can start here at all
    }
    return decision.p2p ? kExitOk : kExitFindings;
}

}  // namespace

Command add_gate_command(CLI::App& app) {
    auto options = std::make_shared<GateOptions>();
    CLI::App* sub = app.add_subcommand(
        "gate", "may P2P flow between these GPUs, and which environment a launch should get");
    options->gpus_option = sub->add_option(
        "--gpus",
        options->gpus,
        "nvidia-smi indices (PCI bus order) such as 0,1,3, or 'all'; default: the GPUs "
        "the inherited environment exposes");
    add_place_option(sub, options->place);
    sub->add_option("--for",
                    options->profile,
                    "which launcher to plan for: llama.cpp (default), nccl, vllm, sglang, all");
    sub->add_option(
           "--format", options->format, "text (default), json (as --json), shell (eval-able)")
        ->check(CLI::IsMember({"text", "json", "shell"}));
    sub->footer(
        "Exit status: 0 P2P allowed, 1 P2P vetoed, 2 usage error (a --gpus GPU not on this "
        "host included), 3 node unusable: no CUDA program can start here (P2P vetoed too).\n"
        "Apply to this shell: eval \"$(peergate gate --gpus 0,1 --format shell)\"");
    return Command{sub, [options](const Invocation& inv) { return run_gate(inv, *options); }};
}

}  // namespace peergate::cli
