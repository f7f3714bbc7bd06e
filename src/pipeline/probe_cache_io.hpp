// SPDX-License-Identifier: Apache-2.0
// The verdict cache on disk: probe-<host>.json in --cache-dir, else $PEERGATE_CACHE_DIR, else
// for root /var/cache/peergate, else $XDG_CACHE_HOME/peergate or ~/.cache/peergate; read only
// when trusted (util::read_owned_file), written atomically 0644 under a lock beside it. Each
// ordered pair's latest verdict on this boot and identity wins
// (policy::gate::merge_probe_results). docs/security.md says why each of these.
// The gate reads it through consult_probe_cache (see docs/probe.md).
#pragma once

#include "model/discovery.hpp"
#include "model/host_facts.hpp"
#include "model/machine_identity.hpp"
#include "model/probe_result.hpp"
#include "pipeline/context.hpp"
#include "pipeline/cuda_setup.hpp"
#include "policy/gate/probe_cache.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace peergate::pipeline {

// `flag` when given, else $PEERGATE_CACHE_DIR, else for root (`as_root`) /var/cache/peergate
// whatever HOME says, else $XDG_CACHE_HOME/peergate, else $HOME/.cache/peergate; "" when
// none of them is known.
std::string probe_cache_dir(const util::EnvMap& env, const std::string& flag, bool as_root);

// The cache file's name in that directory: one per host, because a cluster's nodes often
// share one $HOME and would otherwise replace each other's results, and one per simulated
// machine, so that a demo never replaces a real host's result: "probe-<host>.json" or
// "probe-simulated-<machine file's stem>.json", other characters than [A-Za-z0-9._-] as '_'.
std::string probe_cache_file_name(std::string_view host_name, std::string_view simulated_machine);

// The cache file for this invocation (its host, or its simulated machine); "" when no
// directory is known.
std::string probe_cache_path(const Context& ctx, const std::string& flag);

// The identity of this machine as the CUDA driver, the topology and the host show it.
model::MachineIdentity identity_of(const CudaSetup& setup,
                                   const model::Discovery& discovery,
                                   const model::HostFacts& host);

// Writes `result` with this machine's identity, merged with what the cache holds for this
// boot, under an exclusive lock so that concurrent probes add up. Failure to write is
// reported on stderr and otherwise ignored: the probe's verdict stands without the cache.
void store_probe_result(const Context& ctx,
                        const std::string& cache_dir,
                        const CudaSetup& setup,
                        const model::Discovery& discovery,
                        const model::ProbeResult& result);

// The cache as read and judged against this machine now; `entry` is kept whether or not
// the verdict finds it valid.
struct CacheReading {
    std::optional<model::ProbeCacheEntry> entry;
    policy::gate::CacheVerdict verdict;
};

// Reads the cache and judges it against this machine now (opens the CUDA driver to learn
// the driver version and bus ids).
CacheReading read_probe_cache(const Context& ctx,
                              const model::Discovery& discovery,
                              const std::string& cache_dir = "");

// read_probe_cache when something is at the cache's path (a file, a link, a FIFO ...: all
// read, and doubt when they cannot be); nullopt (and no CUDA driver opened) when nothing is,
// or no cache directory is known.
std::optional<CacheReading> read_probe_cache_if_present(const Context& ctx,
                                                        const model::Discovery& discovery);

// For the gate: read_probe_cache's verdict. The gate may allow PCIe P2P for
// verdict.concurrent_pass_pairs only when the user opted in with PEERGATE_TRUST_PROBE=1.
policy::gate::CacheVerdict consult_probe_cache(const Context& ctx,
                                               const model::Discovery& discovery,
                                               const std::string& cache_dir = "");

}  // namespace peergate::pipeline
