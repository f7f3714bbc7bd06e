// SPDX-License-Identifier: Apache-2.0
// From rounds of traffic counters to what each watched GPU moved: bytes per NVLink, per GPU
// over NVLink and over PCIe, with average and peak rates (docs/watch.md "How the counters are
// read"). Pure.
#pragma once

#include "model/link_traffic.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::policy::watch {

// How a GPU's NVLink data counters could be read.
enum class NvlinkCounting {
    per_link,     // each link's own count
    summed_only,  // every link answers the GPU's sum (some drivers): links not told apart
    unavailable,  // no NVLink counter answered (or the GPU has no active NVLink)
};

// "per_link", "summed_only", "unavailable".
const char* to_string(NvlinkCounting counting);

// What moved through one counter over the watch.
struct CounterTotal {
    std::uint64_t bytes = 0;
    double peak_bytes_per_s = 0.0;  // the busiest interval between two rounds
};

struct LinkTotals {
    model::WatchedLink link;
    CounterTotal tx;
    CounterTotal rx;
};

// What a GPU's links toward one far end moved: a peer GPU, the NVSwitches, or (neither) a
// device that is not a watched GPU.
struct PeerTotals {
    std::optional<int> peer;
    bool to_switch = false;
    int links = 0;
    CounterTotal tx;
    CounterTotal rx;
};

struct GpuTotals {
    int index = 0;
    std::string name;
    NvlinkCounting nvlink = NvlinkCounting::unavailable;
    std::string nvlink_reason;      // why unavailable or summed_only; "" otherwise
    std::vector<LinkTotals> links;  // per_link only
    // By far end, in the order the links first name them: per_link, or summed_only where every
    // link ends at one place.
    std::vector<PeerTotals> toward;
    CounterTotal nvlink_tx;  // over every link
    CounterTotal nvlink_rx;
    bool has_nvlink = false;  // the GPU has an active NVLink
    bool pcie_known = false;
    std::string pcie_reason;  // why PCIe is not known
    CounterTotal pcie_tx;     // estimated from 20 ms rate samples, one per round
    CounterTotal pcie_rx;
    int counter_resets = 0;  // intervals a counter fell further than a wrap explains: not counted

    std::uint64_t nvlink_bytes() const { return nvlink_tx.bytes + nvlink_rx.bytes; }

    std::uint64_t pcie_bytes() const { return pcie_tx.bytes + pcie_rx.bytes; }
};

struct TrafficTotals {
    double seconds = 0.0;  // from the first round to the last
    int rounds = 0;
    std::vector<GpuTotals> gpus;  // in WatchedGpu order
};

// A counter step past this many bytes a second is no traffic any link carries (NVLink5 moves
// 50 GB/s a link and direction, 900 GB/s a GPU): the counter was reset in between.
inline constexpr double kMostCountedBytesPerSecond = 10e12;

// Sums the rounds. A KiB counter that steps backwards wrapped at 2^64 (the step is taken
// modulo 2^64), unless that step would be faster than kMostCountedBytesPerSecond, which is a
// reset (the GPU was reset, the driver reloaded): that interval is not counted.
TrafficTotals total_traffic(const std::vector<model::WatchedGpu>& gpus,
                            const std::vector<model::CounterRound>& rounds);

}  // namespace peergate::policy::watch
