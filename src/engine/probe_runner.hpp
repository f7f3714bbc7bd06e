// SPDX-License-Identifier: Apache-2.0
// Runs an integrity plan over a CopyEngine: sentinel in the destination, pattern in the
// source, copy, synchronise with a deadline, compare. Never stops at the first bad byte;
// a watchdog timeout ends the run (the cell is an error, the rest is skipped).
#pragma once

#include "engine/copy_engine.hpp"
#include "engine/probe_plan.hpp"
#include "model/probe_result.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace peergate::engine {

// Called after each finished cell: the cell, how many are done, how many there are.
using ProbeProgress =
    std::function<void(const model::ProbeCell& cell, std::size_t done, std::size_t total)>;

// Every planned cell, in planned_cells() order, with its status and counts.
std::vector<model::ProbeCell> run_probe_cells(CopyEngine& engine,
                                              const ProbePlan& plan,
                                              const ProbeProgress& progress = {});

// Completes a run that had to be abandoned (a driver call that never returned): the
// cells done so far are kept, the next one is an error with `reason`, the rest skipped.
std::vector<model::ProbeCell> finish_abandoned_run(const ProbePlan& plan,
                                                   std::vector<model::ProbeCell> done,
                                                   const std::string& reason);

}  // namespace peergate::engine
