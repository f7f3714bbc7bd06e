// SPDX-License-Identifier: Apache-2.0
// One verdict cache entry: a probe result with the machine identity it was measured on.
// The document form is report/probe/cache_json; what the gate may conclude from it is
// policy/gate/probe_cache.
#pragma once

#include "model/machine_identity.hpp"
#include "model/probe_result.hpp"

#include <string>

namespace peergate::model {

struct ProbeCacheEntry {
    MachineIdentity identity;
    ProbeResult result;
    std::string written_at;  // ISO 8601 UTC, informational only
};

}  // namespace peergate::model
