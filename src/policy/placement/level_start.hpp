// SPDX-License-Identifier: Apache-2.0
// A starting placement that puts as many groups at each level as any placement can.
//
// (2) adds up each group's weakest link, so where few groups can reach a high level, a
// placement gains most by placing exactly those groups; the other starts build groups for
// their pair weights and often miss them. On random NVLink/SYS mixes with groups of 6
// they kept one NVLink-only group where two fit, and the searches, which improve (3)
// first under an open (2), did not mend it in a second (docs/PERFORMANCE.md).
//
// The level caps (exact.cpp) find, at each level above the threshold, the most
// disjoint groups whose pairs all reach it, and keep one such packing as its witness.
// From a witness, the levels below add groups among the rest where they fit, and the
// threshold completes the G groups.
#pragma once

#include "policy/placement/objective.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace peergate::policy::placement {

// Disjoint groups whose pairs all weigh at least `level` (not yet G of them).
struct LevelWitness {
    Weight level = 0;
    Groups groups;
};

struct LevelStart {
    std::optional<Groups> groups;  // G groups whose pairs all reach the threshold
    std::uint64_t nodes = 0;       // search nodes spent
};

// The best placement (by the objective) built from each witness in turn, highest level
// first (`witnesses` in that order), within about `node_budget` search nodes. Required GPUs
// must end up in one group; a placement that splits them is not offered.
LevelStart level_start(const Problem& problem,
                       Weight threshold,
                       const std::vector<LevelWitness>& witnesses,
                       std::uint64_t node_budget);

}  // namespace peergate::policy::placement
