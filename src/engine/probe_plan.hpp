// SPDX-License-Identifier: Apache-2.0
// What an integrity run will do: which GPUs, sizes, repeats and modes, validated, and the
// cells it will produce in run order. Pure.
#pragma once

#include "model/probe_result.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

namespace peergate::engine {

inline constexpr std::int64_t kMaxSizeMib = 16 * 1024;  // element offsets stay 32-bit
// A soak is a burn-in, not a service: a week bounds it.
inline constexpr std::chrono::hours kMaxSoak{24 * 7};

struct ProbeRequest {
    std::vector<int> gpus;  // nvidia-smi indices; engine device p is gpus[p]
    std::vector<std::int64_t> sizes_mib{1, 4, 16, 64};
    std::int64_t repeats = 3;
    std::vector<model::ProbeMode> modes{model::ProbeMode::serial};
    std::chrono::milliseconds timeout{30'000};
    // 0: one sweep. Else sweep again, with fresh patterns, until this long has passed.
    std::chrono::milliseconds soak{0};
    std::vector<model::ProbePath> paths{model::ProbePath::ce};
    bool quick = false;  // the pre-launch check (quick_request); said in the result's reason
};

// probe --quick: every ordered pair on every path at once, one 1 MiB transfer each, for a
// check in front of a launch that costs less than NCCL's own diagnostics (docs/probe.md).
ProbeRequest quick_request(std::chrono::milliseconds timeout);

// How long the handshake's waiter spins before it calls the flag lost: a quarter of the
// watchdog, at most 2 s (a flag crosses in microseconds; the payload before it, even
// 64 MiB from every GPU at once over PCIe, in tens of milliseconds), so that a lost flag
// is a verdict and never the watchdog.
std::chrono::nanoseconds handshake_budget(std::chrono::milliseconds timeout);

struct ProbePlan {
    std::vector<int> gpus;
    std::vector<std::uint64_t> sizes_bytes;
    int repeats = 3;
    std::vector<model::ProbeMode> modes;
    std::chrono::milliseconds timeout{30'000};
    std::chrono::milliseconds soak{0};
    std::vector<model::ProbePath> paths{model::ProbePath::ce};
    bool quick = false;

    friend bool operator==(const ProbePlan&, const ProbePlan&) = default;
};

// Refuses what would test nothing or cannot be run: a zero or negative size or repeat
// count, no size, no mode, a non-positive timeout, a negative or week-long soak, a GPU
// listed twice.
// A probe that tests nothing must never print PASS.
util::Expected<ProbePlan> make_probe_plan(const ProbeRequest& request);

// One ordered pair of engine positions.
struct PositionPair {
    int src = 0;
    int dst = 0;
    friend bool operator==(const PositionPair&, const PositionPair&) = default;
};

// The pairs copied at the same time, at one size, in one mode, on one path.
struct CopyGroup {
    model::ProbeMode mode = model::ProbeMode::serial;
    model::ProbePath path = model::ProbePath::ce;
    std::uint64_t size_bytes = 0;
    std::vector<PositionPair> pairs;
};

// Run order: per mode, per path, serial groups hold one pair (pair-major, then size), bidirectional
// groups hold A->B and B->A, a concurrent group holds every ordered pair (one per size).
std::vector<CopyGroup> plan_groups(const ProbePlan& plan);

// The cells the plan will produce, in run order, status skipped and nothing counted yet.
std::vector<model::ProbeCell> planned_cells(const ProbePlan& plan);

}  // namespace peergate::engine
