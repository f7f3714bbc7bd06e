// SPDX-License-Identifier: Apache-2.0
// `fleet health --drain`'s dealings with Slurm: read whether the node is drained and why,
// and drain or resume it as the health plan says (docs/fleet.md). Slurm runs health checks
// as root with PATH unset and kills them after 60 s: scontrol is run by the absolute path
// given, with a timeout, never through a shell.
#pragma once

#include "pipeline/context.hpp"
#include "policy/fleet/slurm_health.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::pipeline {

// How scontrol is run: the program by absolute path and the slurm.conf it is told to read
// (SLURM_CONF in its environment; "" leaves scontrol to its default), with why that one.
struct Scontrol {
    std::string program = "/usr/bin/scontrol";
    std::string slurm_conf;
    std::string why;
};

// The slurm.conf for scontrol: `option` (--slurm-conf) if given, else SLURM_CONF in the
// environment, else the one the parent slurmd reads when it is slurmd and runs as root
// (sources/slurm/slurmd_config.hpp; docs/fleet.md, docs/security.md), else scontrol's default.
Scontrol choose_scontrol(const Context& ctx, std::string program, const std::string& option);

// The node's drain state from `scontrol show node NODE`.
util::Expected<policy::fleet::SlurmNodeDrain> read_node_drain(const Context& ctx,
                                                              const Scontrol& scontrol,
                                                              const std::string& node);

// Drains or resumes `node` as `plan` says (nothing for SlurmAction::none).
util::Expected<void> apply_health_plan(const Context& ctx,
                                       const Scontrol& scontrol,
                                       const std::string& node,
                                       const policy::fleet::HealthPlan& plan);

}  // namespace peergate::pipeline
