// SPDX-License-Identifier: Apache-2.0
// The topology tiers of docs/gate-rules.md §3: NVML, else nvidia-smi topo -m, else none.
// Fails closed: a tier that cannot give a whole, consistent matrix gives no verdict.
#pragma once

#include "model/discovery.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "util/env_map.hpp"
#include "util/expected.hpp"
#include "util/seams.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::sources {

enum class TierChoice { automatic, nvml, smi };

struct DiscoveryRequest {
    TierChoice tier = TierChoice::automatic;
    bool crosscheck = false;                          // run both, prefer topo -m on disagreement
    std::chrono::milliseconds nvml_watchdog{10'000};  // NVML calls cannot be cancelled
    std::chrono::milliseconds smi_timeout{10'000};
    // Where the NVML tier also leaves its record of links and P2P status (the doctor), or why
    // there is none; nullptr: the tier records nothing more than its matrix.
    util::Expected<nvml::NvmlRecord>* nvml_record = nullptr;
};

using model::CrossCheck;
using model::Discovery;
using model::TierAttempt;

// Runs the tiers against the seams. Never throws and never blocks past the watchdog
// and timeout; an unreadable host yields a Discovery without topology and a reason.
Discovery discover_topology(const util::Seams& seams,
                            const util::EnvMap& env,
                            const DiscoveryRequest& request);

// NVLinked pairs of each tier compared (unordered pairs, a < b).
CrossCheck compare_tiers(const model::Topology& nvml, const model::Topology& smi);

}  // namespace peergate::sources
