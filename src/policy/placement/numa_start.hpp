// SPDX-License-Identifier: Apache-2.0
// A starting placement built NUMA class by NUMA class: as many groups as each class holds
// alone, then the groups that must mix classes from what is left. Where the weakest link,
// (2) and (3) leave only (4) to decide (NVSwitch boxes with a few links down), the greedy
// start mixes classes freely, and the exact search then spends its budget proving that
// fewer NUMA nodes cannot be spanned instead of finding the placement that spans them.
#pragma once

#include "policy/placement/objective.hpp"

#include <cstdint>
#include <optional>

namespace peergate::policy::placement {

struct NumaStart {
    std::optional<Groups> groups;  // G groups whose pairs all reach the threshold
    std::uint64_t nodes = 0;       // search nodes spent
};

// Tries the largest pure-group counts first and gives up after `node_budget` search nodes.
// No start is offered when GPUs are required (they decide the first group) or when there
// is only one NUMA class.
NumaStart numa_first_start(const Problem& problem, Weight threshold, std::uint64_t node_budget);

}  // namespace peergate::policy::placement
