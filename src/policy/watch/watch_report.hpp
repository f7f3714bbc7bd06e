// SPDX-License-Identifier: Apache-2.0
// One watch, judged: what ran, what the gate decided, what each GPU and pair moved, the
// verdicts and the findings. report/watch renders it (peergate.watch/v1). Pure.
#pragma once

#include "model/finding.hpp"
#include "model/link_traffic.hpp"
#include "policy/watch/path_verdicts.hpp"
#include "policy/watch/traffic_totals.hpp"
#include "policy/watch/watch_findings.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::policy::watch {

struct GateSummary {
    std::string profile;
    bool p2p = false;
    std::string rule;
    std::string reason;
};

struct WatchReport {
    std::vector<std::string> command;  // empty: --attach
    std::optional<int> exit_status;    // the command's, as a shell reports it
    double seconds = 0.0;              // from the sampler's start to its stop
    int interval_ms = 0;
    std::optional<GateSummary> gate;  // absent: --no-gate or --attach
    std::string sampling_error;       // the sampler could not start; "" when it read rounds
    std::string sampling_stopped;     // NVML stopped answering before the end; ""
    double sampler_cpu_seconds = 0.0;
    double start_delay_s = 0.0;  // how long the command waited for the first round
    std::vector<model::WatchedGpu> gpus;
    TrafficTotals totals;
    std::vector<PairVerdict> verdicts;
    std::vector<model::Finding> findings;
};

// Totals, verdicts and findings of `rounds` over `gpus` into `report`.
void judge_watch(WatchReport& report,
                 const std::vector<model::CounterRound>& rounds,
                 const WatchFacts& facts);

}  // namespace peergate::policy::watch
