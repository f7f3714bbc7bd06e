// SPDX-License-Identifier: Apache-2.0
// peergate.bench/v1 and the bench table. Rates are stored in bytes per second and shown
// in GB/s (1e9 bytes per second); latency is stored in seconds and shown in microseconds.
#pragma once

#include "engine/bandwidth.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace peergate::report::bench {

// Where a bench ran, so that place and the doctor can refuse a result from other GPUs.
struct BenchOrigin {
    std::string host;                    // informational
    std::vector<std::string> gpu_uuids;  // by position in BenchResult::gpus; "" where unknown
};

// schema, result, reason, gpus, size_bytes, pairs[src, dst, path, p2p_gbps, staged_gbps,
// bidirectional_gbps, latency_us, p2p_slower_than_staged, samples, error], devices[...],
// host, gpu_uuids (null where unknown).
nlohmann::ordered_json bench_to_json(const engine::BenchResult& result,
                                     int exit_status,
                                     const BenchOrigin& origin = {});

std::string bench_to_text(const engine::BenchResult& result, int exit_status);

// The sentence that explains the exit status (names the slower pairs).
std::string bench_reason(const engine::BenchResult& result, int exit_status);

}  // namespace peergate::report::bench
