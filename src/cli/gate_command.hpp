// SPDX-License-Identifier: Apache-2.0
// What `gate` and `exec` share before they part ways: parse --gpus/--for, decide for this
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
// nullopt after printing the usage error. `gathered`, when given, receives what the decision
// read (the GPUs and their CPU affinity, for exec --bind-cpus). exec passes the command it
// will run as `child_argv`.
std::optional<policy::gate::GateDecision> decide_for_command(
    const Invocation& inv,
    const std::optional<std::string>& gpus,
    const std::string& profile,
    policy::gate::GateInput* gathered = nullptr,
    std::vector<std::string> child_argv = {});

}  // namespace peergate::cli
