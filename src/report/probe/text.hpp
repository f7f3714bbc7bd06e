// SPDX-License-Identifier: Apache-2.0
// The probe's result as people read it: one row per ordered pair with a verdict per
// mode, the outcome, and on data loss the remedy.
#pragma once

#include "model/probe_result.hpp"

#include <string>

namespace peergate::report::probe {

std::string probe_to_text(const model::ProbeResult& result, bool color);

// One line for the progress bar: "[#####.....] 12/48 cells, GPU 0 -> 1 16 MiB serial",
// after the first round of a soak led by "round 2 ".
std::string probe_progress_line(const model::ProbeCell& cell,
                                std::size_t done,
                                std::size_t total,
                                int round);

}  // namespace peergate::report::probe
