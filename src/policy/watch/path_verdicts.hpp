// SPDX-License-Identifier: Apache-2.0
// Which path each pair of watched GPUs used while the job ran, from what the counters counted
// (docs/watch.md "Verdicts"): nvlink, pcie, idle or unknown. Pure.
#pragma once

#include "model/link_traffic.hpp"
#include "policy/watch/traffic_totals.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace peergate::policy::watch {

enum class PathVerdict { nvlink, pcie, idle, unknown };

// "nvlink", "pcie", "idle", "unknown".
const char* to_string(PathVerdict verdict);

// How two GPUs can reach each other over NVLink.
enum class NvlinkRoute { none, direct, nvswitch };

// "none", "direct", "nvswitch".
const char* to_string(NvlinkRoute route);

// The least a GPU or pair must move to count as having moved data: below it is the
// driver's own chatter (NVLink) or the noise of a 20 ms PCIe sample an idle GPU gives.
inline constexpr std::uint64_t kMovedNvlinkBytes = std::uint64_t{1} << 20U;
inline constexpr std::uint64_t kMovedPcieBytes = std::uint64_t{16} << 20U;

struct PairVerdict {
    int a = 0;  // nvidia-smi indices, a before b in the watched order
    int b = 0;
    NvlinkRoute route = NvlinkRoute::none;
    PathVerdict verdict = PathVerdict::unknown;
    // Bytes counted on the links between a and b (both ways); nullopt where the counters do
    // not tell them apart (through NVSwitches, or links not told apart).
    std::optional<std::uint64_t> nvlink_bytes;
    std::string reason;  // one line: what the counters showed
};

// The route between the GPUs at positions p and q of `gpus`.
NvlinkRoute nvlink_route(const std::vector<model::WatchedGpu>& gpus, std::size_t p, std::size_t q);

// Every pair of watched GPUs, in watched order. `totals` must come from `gpus`.
std::vector<PairVerdict> judge_pairs(const std::vector<model::WatchedGpu>& gpus,
                                     const TrafficTotals& totals);

}  // namespace peergate::policy::watch
