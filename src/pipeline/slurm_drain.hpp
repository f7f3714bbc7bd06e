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

// The node's drain state from `program show node NODE`.
util::Expected<policy::fleet::SlurmNodeDrain> read_node_drain(const Context& ctx,
                                                              const std::string& program,
                                                              const std::string& node);

// Drains or resumes `node` as `plan` says (nothing for SlurmAction::none).
util::Expected<void> apply_health_plan(const Context& ctx,
                                       const std::string& program,
                                       const std::string& node,
                                       const policy::fleet::HealthPlan& plan);

}  // namespace peergate::pipeline
