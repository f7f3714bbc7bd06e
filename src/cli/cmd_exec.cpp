// SPDX-License-Identifier: Apache-2.0
// peergate exec: decide, then replace this process with CMD under the decided environment
// (argv untouched, no shell). The exit status is CMD's; 2 when CMD cannot start, which includes
// a node where no CUDA program can (docs/gate-rules.md §2, cuda_unavailable).
#include "cli/commands.hpp"
#include "cli/gate_command.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/launch_binding.hpp"
#include "pipeline/launch_place.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace peergate::cli {

namespace {

// What execvp searches when PATH is unset is libc's choice; ours is written down.
constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

struct ExecOptions {
    std::string gpus;
    CLI::Option* gpus_option = nullptr;  // to tell "--gpus ''" from no --gpus
    std::string profile = "llama.cpp";
    bool bind_cpus = false;
    bool bind_memory = false;
    bool even_if_unusable = false;  // start CMD where no CUDA program can start
    int place = 0;  // --place K: the best K GPUs (among --gpus) instead of --gpus itself
    std::vector<std::string> command;
};

int replace_process(const Invocation& inv,
                    const std::vector<std::string>& command,
                    const util::EnvMap& env) {
    auto program = util::find_program(command.front(), env.get("PATH").value_or(kDefaultPath));
    if (!program) {
        print_error(inv.output,
                    fmt::format("cannot run '{}': {}", command.front(), program.error().message));
        return kExitError;
    }
    util::CStringArray argv(command);
    util::CStringArray envp(env.to_strings());
    std::fflush(nullptr);
    ::execve(program->c_str(), argv.data(), envp.data());
    print_error(inv.output, fmt::format("cannot run '{}': {}", *program, std::strerror(errno)));
    return kExitError;
}

void log_binding(const Invocation& inv,
                 bool bound,
                 const char* bound_words,
                 const char* not_bound_words,
                 const std::string& why) {
    if (!inv.output.quiet) {
        fmt::print(inv.output.err, "peergate: {}{}\n", bound ? bound_words : not_bound_words, why);
    }
}

int run_exec(const Invocation& inv, const ExecOptions& options) {
    if (options.command.empty()) {
        print_error(inv.output, "exec needs a command: peergate exec [--gpus LIST] -- CMD ARGS...");
        return kExitError;
    }
    const auto gpus = pipeline::launch_gpus(
        inv, gpus_given(options.gpus_option, options.gpus), options.place, options.profile);
    if (!gpus) {
        print_error(inv.output, gpus.error().message);
        return kExitError;
    }
    policy::gate::GateInput gathered;
    const auto decided =
        decide_for_command(inv, *gpus, options.profile, &gathered, options.command);
    if (!decided) {
        return kExitError;
    }
    const auto& decision = *decided;
    if (!command_may_start(inv, decision, options.command.front(), options.even_if_unusable)) {
        return kExitError;
    }
    log_decision(inv, decision);
    if (options.bind_cpus) {
        const auto cpus = pipeline::bind_cpus_near_gpus(gathered, decision.selection);
        log_binding(inv, cpus.bound, "bound to ", "CPUs not bound: ", cpus.why);
    }
    if (options.bind_memory) {
        const auto memory = pipeline::bind_memory_near_gpus(gathered, decision.selection);
        log_binding(inv, memory.bound, "memory bound to ", "memory not bound: ", memory.why);
    }
    return replace_process(inv, options.command, child_environment(inv, &decision));
}

}  // namespace

Command add_exec_command(CLI::App& app) {
    auto options = std::make_shared<ExecOptions>();
    CLI::App* sub = app.add_subcommand(
        "exec", "decide, then run CMD with the decided environment (argv untouched, no shell)");
    options->gpus_option = sub->add_option(
        "--gpus",
        options->gpus,
        "nvidia-smi indices (PCI bus order) such as 0,1,3, or 'all'; the child then gets "
        "CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES=LIST");
    add_place_option(sub, options->place);
    sub->add_option("--for", options->profile, "llama.cpp (default), nccl, vllm, sglang, all");
    sub->add_flag("--bind-cpus",
                  options->bind_cpus,
                  "run CMD on the CPUs near the gated GPUs (their CPU affinity, as this process "
                  "is allowed); where that cannot be done CMD still starts, and the log says why");
    sub->add_flag("--bind-memory",
                  options->bind_memory,
                  "CMD allocates host memory only from the gated GPUs' NUMA nodes (as numactl "
                  "--membind; those this process may use); where that cannot be done CMD still "
                  "starts, and the log says why");
    add_even_if_unusable_flag(sub, options->even_if_unusable);
    sub->add_option(
        "command", options->command, "-- CMD ARGS...: the program to run and its arguments");
    sub->footer(
        "Exit status: CMD's; 2 when CMD cannot be started (no CUDA program can start here, "
        "unless --even-if-unusable), a --gpus GPU is not on this host, or the options are "
        "wrong.\n"
        "The decision is logged on stderr in one line (not with -q).");
    return Command{sub, [options](const Invocation& inv) { return run_exec(inv, *options); }};
}

}  // namespace peergate::cli
