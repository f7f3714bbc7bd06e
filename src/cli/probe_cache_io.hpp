// SPDX-License-Identifier: Apache-2.0
// The verdict cache on disk: $XDG_CACHE_HOME/peergate/probe.json (else
// ~/.cache/peergate/probe.json, or --cache-dir), written atomically. The latest probe wins.
// The gate reads it through consult_probe_cache (see docs/probe.md).
#pragma once

#include "cli/cuda_setup.hpp"
#include "cli/invocation.hpp"
#include "model/discovery.hpp"
#include "model/host_facts.hpp"
#include "model/machine_identity.hpp"
#include "model/probe_result.hpp"
#include "report/probe_cache.hpp"

#include <string>

namespace peergate::cli {

// `flag` when given, else $XDG_CACHE_HOME/peergate, else $HOME/.cache/peergate; "" when
// none of them is known.
std::string probe_cache_dir(const util::EnvMap& env, const std::string& flag);

// The identity of this machine as the CUDA driver, the topology and the host show it.
model::MachineIdentity identity_of(const CudaSetup& setup,
                                   const model::Discovery& discovery,
                                   const model::HostFacts& host);

// Writes `result` with this machine's identity. Failure to write is reported on stderr
// and otherwise ignored: the probe's verdict stands without the cache.
void store_probe_result(const Invocation& inv,
                        const std::string& cache_dir,
                        const CudaSetup& setup,
                        const model::Discovery& discovery,
                        const model::ProbeResult& result);

// For the gate: reads the cache and judges it against this machine now (opens the CUDA
// driver to learn the driver version and bus ids). The gate may allow PCIe P2P for
// verdict.concurrent_pass_pairs only when the user opted in with PEERGATE_TRUST_PROBE=1.
report::CacheVerdict consult_probe_cache(const Invocation& inv,
                                         const model::Discovery& discovery,
                                         const std::string& cache_dir = "");

}  // namespace peergate::cli
