// SPDX-License-Identifier: Apache-2.0
// `peergate bench`'s use case: discover, set up the CUDA driver for the selected GPUs and run
// the bandwidth plan behind the watchdog, so that a hung driver call ends the run, not the
// command.
#pragma once

#include "engine/bandwidth.hpp"
#include "pipeline/context.hpp"
#include "report/bench/render.hpp"

#include <vector>

namespace peergate::pipeline {

struct BenchRun {
    engine::BenchResult result;         // with .reason and no pairs when it could not run
    report::bench::BenchOrigin origin;  // the host and the GPUs' UUIDs, when it ran
    bool ran = false;
};

// Runs `plan` on the GPUs `selection` (nvidia-smi indices; empty: every GPU).
BenchRun run_bench(const Context& ctx, const std::vector<int>& selection, engine::BenchPlan plan);

}  // namespace peergate::pipeline
