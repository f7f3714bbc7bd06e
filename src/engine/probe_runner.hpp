// SPDX-License-Identifier: Apache-2.0
// Runs an integrity plan over a CopyEngine: sentinel in the destination, pattern in the
// source, copy, synchronise with a deadline, compare. Never stops at the first bad byte;
// a watchdog timeout ends the run (the cell is an error, the rest is skipped).
#pragma once

#include "engine/copy_engine.hpp"
#include "engine/probe_plan.hpp"
#include "model/probe_result.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace peergate::engine {

// Called after each finished cell: the cell (summed over the rounds so far), how many cells
// of this round are done, how many a round has, and the round (0 for the first sweep).
using ProbeProgress = std::function<void(
    const model::ProbeCell& cell, std::size_t done, std::size_t total, int round)>;

// Where a soak reads the time; tests give a clock of their own.
using SoakClock = std::function<std::chrono::steady_clock::time_point()>;

struct ProbeRun {
    std::vector<model::ProbeCell> cells;  // planned_cells() order, summed over the rounds
    int rounds = 0;                       // sweeps run (the last may have been cut short)
    double device_seconds = 0.0;          // per repeat of a group, its slowest lane's, summed
};

// Sweeps the plan once, or with plan.soak again and again (fresh patterns each round) until
// the soak has passed. A round that lost data, hit the watchdog or moved nothing ends the
// soak: the verdict can only get worse from there. A cell's status is its worst round's.
ProbeRun run_probe(CopyEngine& engine,
                   const ProbePlan& plan,
                   const ProbeProgress& progress = {},
                   const SoakClock& clock = {});

// Completes a run that had to be abandoned (a driver call that never returned) at cell
// `next` of its last round: that cell is an error with `reason`; the ones after it keep what
// earlier rounds found, or are skipped where no round reached them.
std::vector<model::ProbeCell> finish_abandoned_run(const ProbePlan& plan,
                                                   std::vector<model::ProbeCell> done,
                                                   std::size_t next,
                                                   const std::string& reason);

}  // namespace peergate::engine
