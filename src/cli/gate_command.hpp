// SPDX-License-Identifier: Apache-2.0
// What `gate` and `exec` share before they part ways: parse --gpus/--for, decide for this
// host with the identity join on (this binary is the helper), or print why they cannot.
#pragma once

#include "cli/invocation.hpp"
#include "policy/gate.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace peergate::cli {

// The decision for `--gpus` (when `gpus_option` was given) and `--for profile`; nullopt
// after printing the usage error. `gathered`, when given, receives what the decision read
// (the GPUs and their CPU affinity, for exec --bind-cpus). exec passes the command it will
// run as `child_argv`.
std::optional<policy::GateDecision> decide_for_command(const Invocation& inv,
                                                       const CLI::Option* gpus_option,
                                                       const std::string& gpus,
                                                       const std::string& profile,
                                                       policy::GateInput* gathered = nullptr,
                                                       std::vector<std::string> child_argv = {});

}  // namespace peergate::cli
