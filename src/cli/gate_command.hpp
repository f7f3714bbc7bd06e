// SPDX-License-Identifier: Apache-2.0
// What `gate`, `exec` and `watch` share before they part ways: parse --gpus/--for, decide for this
// host with the identity join on (this binary is the helper), or print why they cannot.
#pragma once

#include "cli/invocation.hpp"
#include "policy/gate/gate.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace peergate::cli {

// --place K for gate and exec.
void add_place_option(CLI::App* sub, int& place);

// --gpus's text, nullopt where it was not given ("--gpus ''" is given, and an error).
std::optional<std::string> gpus_given(const CLI::Option* gpus_option, const std::string& gpus);

// The child's environment: the parent's, with the decision applied (none: as inherited).
// PEERGATE_SIM_MACHINE is peergate's own plumbing under --simulate, not the user's.
util::EnvMap child_environment(const Invocation& inv, const policy::gate::GateDecision* decision);

// The decision for `gpus` (nullopt: the inherited environment's GPUs) and `--for profile`;
// nullopt after printing the usage error (a bad list or profile, a GPU the host lacks). `gathered`,
// when given, receives what the decision read (the GPUs and their CPU affinity, for exec
// --bind-cpus). exec passes the command it will run as `child_argv`.
std::optional<policy::gate::GateDecision> decide_for_command(
    const Invocation& inv,
    const std::optional<std::string>& gpus,
    const std::string& profile,
    policy::gate::GateInput* gathered = nullptr,
    std::vector<std::string> child_argv = {});

// --even-if-unusable for exec and watch.
void add_even_if_unusable_flag(CLI::App* sub, bool& even_if_unusable);

// exec and watch: whether `program` may start on `decision`. Not where no CUDA program can
// start (docs/gate-rules.md §2, cuda_unavailable) unless --even-if-unusable asks for it;
// false after printing why (with the remedy, even under -q).
bool command_may_start(const Invocation& inv,
                       const policy::gate::GateDecision& decision,
                       const std::string& program,
                       bool even_if_unusable);

// exec and watch log the decision on stderr (not with -q): one line, then one per warning,
// and a warning where the command starts on a node where no CUDA program can.
void log_decision(const Invocation& inv, const policy::gate::GateDecision& decision);

}  // namespace peergate::cli
