// SPDX-License-Identifier: Apache-2.0
// One probe run over the CUDA driver (docs/gate-rules.md §6): set up the selected devices, sweep
// every ordered pair behind the watchdog, judge, and keep the verdict in the cache. Shared by
// `peergate probe` and `peergate doctor --probe`.
#pragma once

#include "engine/probe_plan.hpp"
#include "model/discovery.hpp"
#include "model/probe_result.hpp"
#include "pipeline/context.hpp"

#include <string>
#include <vector>

namespace peergate::pipeline {

struct ProbeSettings {
    engine::ProbeRequest request;  // its gpus are filled from the selection
    model::VerifySite verify = model::VerifySite::device;
    std::string cache_dir;  // "" = the default verdict cache
    bool store = true;      // write the result to the verdict cache
};

// Probes every ordered pair of `selection` (nvidia-smi indices; empty = every GPU). The
// settings must have passed engine::make_probe_plan. A probe that cannot run (no driver,
// fewer than two GPUs, devices that do not map) is an inconclusive result saying why.
model::ProbeResult probe_selection(const Context& ctx,
                                   const model::Discovery& discovery,
                                   const std::vector<int>& selection,
                                   const ProbeSettings& settings);

}  // namespace peergate::pipeline
