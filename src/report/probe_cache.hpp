// SPDX-License-Identifier: Apache-2.0
// The verdict cache document (peergate.probe_cache/v1): the probe result with the machine
// identity it was measured on, and what the gate may conclude from it. Pure; the file
// I/O is in pipeline/probe_cache_io.
#pragma once

#include "model/machine_identity.hpp"
#include "model/probe_result.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::report {

struct ProbeCacheEntry {
    model::MachineIdentity identity;
    model::ProbeResult result;
    std::string written_at;  // ISO 8601 UTC, informational only
};

std::string probe_cache_to_text(const ProbeCacheEntry& entry);

// nullopt with the reason in `error` when the text is not a cache document.
std::optional<ProbeCacheEntry> probe_cache_from_text(const std::string& text, std::string* error);

// What the cache says for this machine now.
struct CacheVerdict {
    bool valid = false;  // written on this machine identity (same boot included)
    std::string reason;  // why not valid: "no cache", "boot_id, iommu changed", ...
    // Ordered pairs (nvidia-smi indices) that passed the concurrent mode on the direct
    // path in the cached run; empty unless valid.
    std::vector<std::pair<int, int>> concurrent_pass_pairs;
    // Ordered pairs that lost data in any mode of the cached run; empty unless valid.
    std::vector<std::pair<int, int>> lost_pairs;
};

CacheVerdict judge_cache(const std::optional<ProbeCacheEntry>& entry,
                         const model::MachineIdentity& now);

// The probe just run, with the ordered pairs an earlier probe (on the same boot and identity:
// the caller judges that) covered and this one did not, cells included: each pair's latest
// verdict wins, so probing GPUs 2,3 keeps what a probe of 0,1 found. A loss is the exception:
// a pair that lost data earlier keeps that verdict even when it passes now (the loss is
// load-dependent). Any pair that lost data fails the whole; a pair in error or skipped
// leaves it inconclusive.
model::ProbeResult merge_probe_results(const model::ProbeResult& earlier,
                                       model::ProbeResult latest);

}  // namespace peergate::report
