// SPDX-License-Identifier: Apache-2.0
// The topology cache (topology_cache.hpp).
#include "sources/discovery/topology_cache.hpp"

#include <mutex>
#include <system_error>
#include <thread>

namespace peergate {

struct TopologyCache::State {
    mutable std::mutex mutex;
    std::uint64_t generation = 0;  // bumped by refresh(); a pass publishes only if unchanged
    std::optional<model::Discovery> published;
    int passes = 0;  // in flight
    DiscoverFn discover;
};

namespace {

model::Discovery run_tiers(const TopologyConfig& config, const sources::DiscoveryRequest& request) {
    return sources::discover_topology(config.seams, config.env, request);
}

bool opted_out(const util::EnvMap& env) {
    return env.is_one("PEERGATE_DISABLE_TUNING") || env.is_one("PEERGATE_DISABLE_P2P") ||
           env.is_one("UNSLOTH_DISABLE_DC_TUNING") || env.is_one("UNSLOTH_DISABLE_DC_P2P");
}

bool crosscheck_wanted(const TopologyConfig& config) {
    return config.request.crosscheck || config.env.is_one("PEERGATE_TOPO_CROSSCHECK") ||
           config.env.is_one("UNSLOTH_P2P_TOPO_CROSSCHECK");
}

// Runs one pass without the lock (discovery may take seconds, and NVML may hang), then
// publishes a success if no refresh began since `started_at`.
template <typename StatePtr>
model::Discovery run_pass(const StatePtr& state,
                          const TopologyConfig& config,
                          const sources::DiscoveryRequest& request,
                          std::uint64_t started_at) {
    model::Discovery discovery = state->discover(config, request);
    const std::lock_guard lock(state->mutex);
    if (discovery.topology && started_at == state->generation) {
        state->published = discovery;
    }
    --state->passes;
    return discovery;
}

}  // namespace

TopologyCache::TopologyCache(DiscoverFn discover) : state_(std::make_shared<State>()) {
    state_->discover = discover ? std::move(discover) : DiscoverFn(run_tiers);
}

model::Discovery TopologyCache::get(const TopologyConfig& config) {
    std::uint64_t started_at = 0;
    {
        const std::lock_guard lock(state_->mutex);
        if (state_->published) {
            return *state_->published;
        }
        started_at = state_->generation;
        ++state_->passes;
    }
    return run_pass(state_, config, config.request, started_at);
}

model::Discovery TopologyCache::refresh(const TopologyConfig& config) {
    std::uint64_t started_at = 0;
    {
        const std::lock_guard lock(state_->mutex);
        started_at = ++state_->generation;
        ++state_->passes;
    }
    return run_pass(state_, config, config.request, started_at);
}

PrimeOutcome TopologyCache::prime(const TopologyConfig& config) {
    if (opted_out(config.env)) {
        return PrimeOutcome::skipped_opt_out;
    }
    if (crosscheck_wanted(config)) {
        return PrimeOutcome::skipped_crosscheck;
    }
    std::uint64_t started_at = 0;
    {
        const std::lock_guard lock(state_->mutex);
        if (state_->published) {
            return PrimeOutcome::already_published;
        }
        started_at = state_->generation;
        ++state_->passes;
    }
    // NVML only: a warm-up never spawns nvidia-smi.
    sources::DiscoveryRequest request = config.request;
    request.tier = sources::TierChoice::nvml;
    request.crosscheck = false;
    try {
        std::thread([state = state_, config, request, started_at] {
            (void)run_pass(state, config, request, started_at);
        }).detach();
    } catch (const std::system_error&) {  // std::thread's one way to fail
        const std::lock_guard lock(state_->mutex);
        --state_->passes;
        return PrimeOutcome::not_started;
    }
    return PrimeOutcome::started;
}

std::optional<model::Discovery> TopologyCache::published() const {
    const std::lock_guard lock(state_->mutex);
    return state_->published;
}

bool TopologyCache::idle() const {
    const std::lock_guard lock(state_->mutex);
    return state_->passes == 0;
}

namespace {

// Never destroyed: a background pass may still run while the process exits.
TopologyCache& process_cache() {
    static auto* cache = new TopologyCache();  // NOLINT(cppcoreguidelines-owning-memory)
    return *cache;
}

}  // namespace

model::Discovery topology(const TopologyConfig& config) {
    return process_cache().get(config);
}

model::Discovery refresh(const TopologyConfig& config) {
    return process_cache().refresh(config);
}

PrimeOutcome prime(const TopologyConfig& config) {
    return process_cache().prime(config);
}

}  // namespace peergate
