// SPDX-License-Identifier: Apache-2.0
// `peergate fleet health`: a Slurm HealthCheckProgram's job for one node (docs/ecosystem.md §3.2).
#pragma once

#include "cli/commands.hpp"

namespace peergate::cli {

// Adds `health` under `fleet`; its runner is called when that subcommand was parsed.
Command add_fleet_health(CLI::App& fleet);

}  // namespace peergate::cli
