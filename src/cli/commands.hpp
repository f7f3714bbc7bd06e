// SPDX-License-Identifier: Apache-2.0
// The command table: each command adds its subcommand and returns how to run it.
#pragma once

#include "cli/invocation.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace peergate::cli {

using CommandRunner = std::function<int(const Invocation&)>;

struct Command {
    CLI::App* app = nullptr;
    CommandRunner run;
};

// One per command file (cli/cmd_<name>.cpp).
Command add_topo_command(CLI::App& app);
Command add_doctor_command(CLI::App& app);
Command add_gate_command(CLI::App& app);
Command add_exec_command(CLI::App& app);
Command add_watch_command(CLI::App& app);
Command add_probe_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_place_command(CLI::App& app);
Command add_gather_command(CLI::App& app);
Command add_nccl_log_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_fleet_command(CLI::App& app);
Command add_cuda_visible_command(CLI::App& app);  // internal helper of the gate

// Every command, in the order `--help` lists them.
std::vector<Command> add_all_commands(CLI::App& app);

}  // namespace peergate::cli
