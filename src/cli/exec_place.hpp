// SPDX-License-Identifier: Apache-2.0
// exec --place K: which GPUs the command gets when the user names a group size, not the
// GPUs: the best group of K on this host, as `peergate place --size K --count 1` finds it.
#pragma once

#include "cli/invocation.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::cli {

struct PlacedSelection {
    std::string gpus;  // "2,3": what --gpus would have said
    std::string log;   // one line on why these: the weakest link, NUMA nodes, proven or not
};

// The best group of `size` GPUs among `candidates` (a --gpus text; "" or "all": every GPU).
// Errors are usage errors: a topology that cannot be read, a bad list, fewer candidates
// than `size`.
util::Expected<PlacedSelection> place_for_exec(const Invocation& inv,
                                               int size,
                                               const std::string& candidates);

}  // namespace peergate::cli
