// SPDX-License-Identifier: Apache-2.0
// What `peergate watch` concludes beyond the verdicts (docs/watch.md "Findings"): P2P the
// job was given and did not use, a GPU that moved nothing while its peers did, NVLink errors
// that grew while the job ran, counters NVML does not answer. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/link_traffic.hpp"
#include "policy/doctor/doctor.hpp"
#include "policy/watch/path_verdicts.hpp"
#include "policy/watch/traffic_totals.hpp"

#include <string>
#include <vector>

namespace peergate::policy::watch {

// What watch knows besides the counters.
struct WatchFacts {
    bool gated = false;                          // the gate decided the job's environment
    bool p2p_allowed = false;                    // and allowed P2P for the watched GPUs
    std::vector<doctor::GpuLinks> links_before;  // NVLink error counters; empty: not read
    std::vector<doctor::GpuLinks> links_after;
    std::string sampling_error;    // why nothing could be sampled (no NVML); ""
    std::string sampling_stopped;  // why NVML stopped answering before the end; "" if it did not
    std::string what_ran = "the job ran";  // for the messages: "While the job ran, ..."
};

// Every finding, sorted by severity, then GPUs.
std::vector<model::Finding> watch_findings(const TrafficTotals& totals,
                                           const std::vector<PairVerdict>& verdicts,
                                           const WatchFacts& facts);

}  // namespace peergate::policy::watch
