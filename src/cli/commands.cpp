// SPDX-License-Identifier: Apache-2.0
#include "cli/commands.hpp"

namespace peergate::cli {

std::vector<Command> add_all_commands(CLI::App& app) {
    return {
        add_topo_command(app),
        add_doctor_command(app),
        add_gate_command(app),
        add_exec_command(app),
        add_watch_command(app),
        add_probe_command(app),
        add_bench_command(app),
        add_place_command(app),
        add_gather_command(app),
        add_nccl_log_command(app),
        add_export_command(app),
        add_fleet_command(app),
        add_cuda_visible_command(app),
    };
}

}  // namespace peergate::cli
