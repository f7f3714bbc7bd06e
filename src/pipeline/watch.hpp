// SPDX-License-Identifier: Apache-2.0
// The watch use case: sample the traffic counters while CMD runs (or, attached, for a while),
// then judge what moved (docs/watch.md). The command line decides the gate and the child's
// environment before; this runs the child and the sampler side by side.
#pragma once

#include "pipeline/context.hpp"
#include "policy/watch/watch_report.hpp"
#include "util/env_map.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace peergate::pipeline {

struct WatchRequest {
    std::vector<int> gpus;  // nvidia-smi indices to watch; empty: every GPU
    std::chrono::milliseconds interval{1000};
    std::vector<std::string> command;                // empty: attach
    std::chrono::milliseconds attach_for{10'000};    // attach: how long to sample
    util::EnvMap child_env;                          // the command's whole environment
    std::optional<policy::watch::GateSummary> gate;  // what the gate decided for it
    // The most the command waits for the sampler's first round: no longer than the gate took
    // to decide (docs/watch.md "Sampling"), so watch delays a launch no more than the gate.
    std::chrono::milliseconds start_wait{1000};
};

// Runs the watch. The error is only for a command that cannot start (then nothing was
// judged); everything NVML does not answer is in the report. Attached, SIGINT or SIGTERM ends
// the sampling early.
util::Expected<policy::watch::WatchReport> run_watch(const Context& ctx,
                                                     const WatchRequest& request);

}  // namespace peergate::pipeline
