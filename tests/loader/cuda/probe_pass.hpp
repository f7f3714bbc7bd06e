// SPDX-License-Identifier: Apache-2.0
// The verdict-cache tests' probe results: ordered pairs that passed the concurrent mode,
// each with its one cell, as a probe on the direct path records them.
#pragma once

#include "model/probe_result.hpp"

#include <utility>
#include <vector>

namespace peergate::test {

// `pairs` passed the concurrent mode over `gpus`, `repeats` copies each.
inline model::ProbeResult concurrent_passes(std::vector<int> gpus,
                                            const std::vector<std::pair<int, int>>& pairs,
                                            int repeats) {
    model::ProbeResult r;
    r.outcome = model::ProbeOutcome::pass;
    r.gpus = std::move(gpus);
    r.modes = {model::ProbeMode::concurrent};
    for (const auto& [src, dst] : pairs) {
        model::ProbeCell c;
        c.src = src;
        c.dst = dst;
        c.size_bytes = 1U << 20U;
        c.mode = model::ProbeMode::concurrent;
        c.repeats = repeats;
        c.status = model::CellStatus::ok;
        r.cells.push_back(c);
        r.pairs.push_back(
            model::ProbePair{.src = src,
                             .dst = dst,
                             .verdict = model::PairVerdict::ok,
                             .modes = {{model::ProbeMode::concurrent, model::PairVerdict::ok}},
                             .detail = "intact"});
    }
    return r;
}

}  // namespace peergate::test
