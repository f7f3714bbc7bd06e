// SPDX-License-Identifier: Apache-2.0
// Bandwidth and latency per ordered pair: P2P copies against the same bytes staged through
// pinned host memory, bidirectional, small-copy latency; on one GPU, device-local and
// host<->device copies. Plan -> run over the CopyEngine -> statistics. Data are bytes and
// seconds; units are converted only by renderers.
#pragma once

#include "engine/copy_engine.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::engine {

// Median (the figure reported), min, max and the raw samples, in bytes per second (or
// seconds, for latency).
struct SampleStats {
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
    std::vector<double> samples;

    friend bool operator==(const SampleStats&, const SampleStats&) = default;
};

// Statistics of `samples`; an empty input gives zeros.
SampleStats summarize(std::vector<double> samples);

struct BenchRequest {
    std::vector<int> gpus;  // nvidia-smi indices; engine device p is gpus[p]
    std::int64_t size_mib = 64;
    bool latency = false;
    int warmup = 2;
    int samples = 5;
    int iterations = 4;  // copies per sample
    std::chrono::milliseconds timeout{30'000};
};

struct BenchPlan {
    std::vector<int> gpus;
    std::uint64_t size_bytes = 0;
    bool latency = false;
    int warmup = 2;
    int samples = 5;
    int iterations = 4;
    int latency_iterations = 100;
    std::uint64_t latency_bytes = 4;
    std::chrono::milliseconds timeout{30'000};
};

// Refuses a size or a count that is zero or negative (usage error).
util::Expected<BenchPlan> make_bench_plan(const BenchRequest& request);

struct PairBandwidth {
    int src = 0;
    int dst = 0;
    model::CopyPath path = model::CopyPath::direct;
    std::optional<SampleStats> p2p;            // bytes/s
    std::optional<SampleStats> staged;         // bytes/s
    std::optional<SampleStats> bidirectional;  // bytes/s, both directions together
    std::optional<SampleStats> latency;        // seconds per small copy
    std::string error;                         // why something is missing

    // True when P2P is measured slower than staging the same bytes through the host.
    bool p2p_slower_than_staged() const { return p2p && staged && p2p->median < staged->median; }
};

struct DeviceBandwidth {
    int gpu = 0;
    std::optional<SampleStats> device_local;  // bytes/s, read + write counted once
    std::optional<SampleStats> host_to_device;
    std::optional<SampleStats> device_to_host;
    std::string error;
};

struct BenchResult {
    std::vector<int> gpus;
    std::uint64_t size_bytes = 0;
    std::vector<PairBandwidth> pairs;      // every ordered pair (two or more GPUs)
    std::vector<DeviceBandwidth> devices;  // one GPU: device-local and host<->device
    std::string reason;                    // why the exit status is what it is
};

// Measures every ordered pair (or the single device). Never throws; errors are per pair.
BenchResult run_bench(CopyEngine& engine, const BenchPlan& plan);

// 0 fine, 1 a pair is slower with P2P than staged, 2 nothing could be measured.
int bench_exit_status(const BenchResult& result);

}  // namespace peergate::engine
