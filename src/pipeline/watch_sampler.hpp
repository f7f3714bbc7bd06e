// SPDX-License-Identifier: Apache-2.0
// watch's sampler: one NVML session on a detached worker that reads the watched GPUs' links
// and error counters, then a round of traffic counters every interval until told to stop,
// then the error counters again in a second session. NVML calls cannot be cancelled, so a
// driver that stops answering leaves the worker behind, and stop() answers with the rounds it
// read (docs/watch.md "Sampling"; docs/driver-facts.md).
#pragma once

#include "model/link_traffic.hpp"
#include "policy/doctor/doctor.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace peergate::pipeline {

struct SamplerOptions {
    std::vector<std::string> libraries;  // the NVML seam
    std::string host_root = "/";
    std::string simulated_machine;
    std::vector<int> gpus;  // nvidia-smi indices to watch; empty: every GPU
    std::chrono::milliseconds interval{1000};
    std::chrono::milliseconds watchdog{
        10'000};  // the most one step may take before stop() gives up
};

struct SampledTraffic {
    util::Expected<void> started;  // the error: no NVML, no session, no GPU to watch
    std::vector<model::WatchedGpu> gpus;
    std::vector<model::CounterRound> rounds;
    std::vector<policy::doctor::GpuLinks> links_before;
    std::vector<policy::doctor::GpuLinks> links_after;  // empty: the end read did not happen
    std::string stopped;         // why rounds ended early (NVML stopped answering); ""
    double cpu_seconds = 0.0;    // the worker's own CPU time, from its start to its last round
    double start_delay_s = 0.0;  // how long the command waited for the first round
};

// A long job at a short interval would keep too many rounds: past this many, every other
// round between the first and the last is dropped (the counts telescope; peaks then span
// two intervals).
inline constexpr std::size_t kMostRounds = 4096;

class TrafficSampler {
public:
    // Starts the worker; it opens NVML and reads the first round on its own.
    static util::Expected<TrafficSampler> start(const SamplerOptions& options);

    // Waits at most `limit` for the first round (the baseline the job's traffic is counted
    // from), or for the worker to give up; false when the limit passed first.
    bool wait_for_first_round(std::chrono::milliseconds limit);

    // Asks for one last round and the end read, and waits at most the watchdog for them.
    SampledTraffic stop();

    struct Shared;

private:
    explicit TrafficSampler(std::shared_ptr<Shared> shared, std::chrono::milliseconds watchdog)
        : shared_(std::move(shared)), watchdog_(watchdog) {}

    std::shared_ptr<Shared> shared_;
    std::chrono::milliseconds watchdog_;
};

}  // namespace peergate::pipeline
