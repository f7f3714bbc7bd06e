// SPDX-License-Identifier: Apache-2.0
// The library API for the interconnect matrix: one topology per process, cached behind a
// lock and a generation counter, and a background warm-up (docs/gate-rules.md §3 "Caching").
#pragma once

#include "model/discovery.hpp"
#include "sources/discovery/topology_tiers.hpp"
#include "util/env_map.hpp"
#include "util/seams.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace peergate {

// Where and how the topology is discovered: the seams, the environment (the control plane
// is read from it, never from getenv) and the tier request.
struct TopologyConfig {
    util::Seams seams;
    util::EnvMap env;
    sources::DiscoveryRequest request;
};

// One discovery pass; the default runs the tiers. Tests substitute their own.
using DiscoverFn =
    std::function<model::Discovery(const TopologyConfig&, const sources::DiscoveryRequest&)>;

// What prime() did.
enum class PrimeOutcome {
    started,             // a background NVML pass is running
    already_published,   // a good matrix is cached: nothing to warm
    skipped_opt_out,     // PEERGATE_DISABLE_TUNING / PEERGATE_DISABLE_P2P (or Unsloth aliases)
    skipped_crosscheck,  // the cross-check wants both tiers, which a warm-up never runs
    not_started,         // the worker thread could not be created
};

// A topology cache. The process-wide one is behind topology(), refresh() and prime().
class TopologyCache {
public:
    explicit TopologyCache(DiscoverFn discover = {});

    // The published matrix, else a new pass (published when it succeeds).
    model::Discovery get(const TopologyConfig& config);

    // A new pass that supersedes every pass started before it: their results are not
    // published. Returns this pass's answer; a failure leaves the published matrix as it is.
    model::Discovery refresh(const TopologyConfig& config);

    // Starts a background NVML-only pass and returns at once; it publishes only a success.
    PrimeOutcome prime(const TopologyConfig& config);

    // The published matrix, if any.
    std::optional<model::Discovery> published() const;

    // True when no pass of this cache is running (for tests and orderly shutdown).
    bool idle() const;

private:
    struct State;
    std::shared_ptr<State> state_;  // shared with background passes, which may outlive a call
};

// The process-wide topology (cached); see TopologyCache::get.
model::Discovery topology(const TopologyConfig& config);

// Forces a new process-wide pass; see TopologyCache::refresh.
model::Discovery refresh(const TopologyConfig& config);

// Warms the process-wide cache in the background; see TopologyCache::prime.
PrimeOutcome prime(const TopologyConfig& config);

}  // namespace peergate
