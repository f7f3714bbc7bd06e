// SPDX-License-Identifier: Apache-2.0
// What the gate may conclude from the verdict cache, and how a new probe adds to it
// (docs/gate-rules.md §6, the verdict cache). Pure; the file I/O is in pipeline/probe_cache_io.
#pragma once

#include "model/machine_identity.hpp"
#include "model/probe_cache_entry.hpp"
#include "model/probe_result.hpp"
#include "policy/gate/types.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::policy::gate {

// What the cached runs found on one path (docs/probe.md, "Paths").
struct PathPairs {
    model::ProbePath path = model::ProbePath::ce;
    // Ordered pairs whose concurrent-mode cells on this path were all ok on the direct path,
    // and that lost no data on this path in any mode.
    std::vector<std::pair<int, int>> passed;
    // Ordered pairs that lost data (or a flag) on this path in any mode.
    std::vector<std::pair<int, int>> lost;

    friend bool operator==(const PathPairs&, const PathPairs&) = default;
};

// What the cache says for this machine now.
struct CacheVerdict {
    bool valid = false;  // written on this machine identity (same boot included)
    std::string reason;  // why not valid: "no cache", "boot_id, iommu changed", ...
    // Ordered pairs (nvidia-smi indices) that passed the concurrent mode on the direct
    // path in the cached run; empty unless valid.
    std::vector<std::pair<int, int>> concurrent_pass_pairs;
    // Ordered pairs that lost data in any mode of the cached run; empty unless valid.
    std::vector<std::pair<int, int>> lost_pairs;
    // The same per path, for each path the cached run covered; empty unless valid. A cache
    // written before paths existed covered the copy path (ce) alone.
    std::vector<PathPairs> by_path;
    // Non-empty when the cache is doubt (docs/gate-rules.md §6): it is there but cannot be
    // read or trusted, or it recorded lost data and cannot be matched to this boot. Such a
    // cache vouches for nothing, and PEERGATE_FORCE_P2P is refused while it stands.
    std::string doubt;
};

// The paths a profile's engine moves peer data on: a cached pass vouches for the profile
// only where it covered every one. llama.cpp: copies (ce); NCCL, vLLM, SGLang: SM stores and
// the flag handshake; all: the three.
std::vector<model::ProbePath> paths_needed(Profile profile);

// The paths whose loss vetoes the profile: copies alone for llama.cpp (its peer traffic is
// cuMemcpyPeerAsync); every path for the others, which may use copies and loads too.
std::vector<model::ProbePath> paths_that_veto(Profile profile);

// The ordered pairs a valid cache vouches for under `profile` (passed on every path it
// needs), and those it saw lose data on a path that vetoes it.
std::vector<std::pair<int, int>> passed_pairs_for(const CacheVerdict& verdict, Profile profile);
std::vector<std::pair<int, int>> lost_pairs_for(const CacheVerdict& verdict, Profile profile);

CacheVerdict judge_cache(const std::optional<model::ProbeCacheEntry>& entry,
                         const model::MachineIdentity& now);

// What a probe result vouches for on the boot and identity it was measured on: the verdict
// judge_cache gives an entry that matches this machine now (valid). The probe holds its own
// pass to it (docs/probe.md, "What a pass means").
CacheVerdict judge_result(const model::ProbeResult& result);

// The doubt of a cache that recorded lost data but is not valid for this machine now
// (`why_not_valid`: a changed identity, an unknown boot, a machine that cannot be
// identified); "" when it recorded no loss.
std::string unmatched_loss_doubt(const model::ProbeCacheEntry& entry,
                                 const std::string& why_not_valid);

// The probe just run, with the ordered pairs an earlier probe (on the same boot and identity:
// the caller judges that) covered and this one did not, cells included: each pair's latest
// verdict wins, so probing GPUs 2,3 keeps what a probe of 0,1 found. A loss is the exception:
// a pair that lost data earlier keeps that verdict even when it passes now (the loss is
// load-dependent). Any pair that lost data fails the whole; a pair in error or skipped
// leaves it inconclusive.
model::ProbeResult merge_probe_results(const model::ProbeResult& earlier,
                                       model::ProbeResult latest);

}  // namespace peergate::policy::gate
