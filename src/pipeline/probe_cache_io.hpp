// SPDX-License-Identifier: Apache-2.0
// The verdict cache on disk: $XDG_CACHE_HOME/peergate/probe-<host>.json (else
// ~/.cache/peergate/, or --cache-dir), written atomically. Each ordered pair's latest verdict
// on this boot and identity wins (policy::gate::merge_probe_results).
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

// `flag` when given, else $XDG_CACHE_HOME/peergate, else $HOME/.cache/peergate; "" when
// none of them is known.
std::string probe_cache_dir(const util::EnvMap& env, const std::string& flag);

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

// Writes `result` with this machine's identity. Failure to write is reported on stderr
// and otherwise ignored: the probe's verdict stands without the cache.
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

// read_probe_cache when the cache file exists; nullopt (and no CUDA driver opened) when it
// does not, or no cache directory is known.
std::optional<CacheReading> read_probe_cache_if_present(const Context& ctx,
                                                        const model::Discovery& discovery);

// For the gate: read_probe_cache's verdict. The gate may allow PCIe P2P for
// verdict.concurrent_pass_pairs only when the user opted in with PEERGATE_TRUST_PROBE=1.
policy::gate::CacheVerdict consult_probe_cache(const Context& ctx,
                                               const model::Discovery& discovery,
                                               const std::string& cache_dir = "");

}  // namespace peergate::pipeline
