// SPDX-License-Identifier: Apache-2.0
// What the integrity and bandwidth runs need from a GPU driver, and nothing more. The CUDA
// driver implements it (sources/cuda/cuda_copy_engine), tests implement it in memory. The
// runs above it are pure: plan -> run over this interface -> verdicts and statistics.
#pragma once

#include "engine/pattern.hpp"
#include "model/probe_result.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::engine {

// Opaque ids the engine hands out; devices are positions 0..device_count()-1.
using BufferId = int;
using StreamId = int;

enum class CopyKind {
    peer,            // device to device over the fabric (cuMemcpyPeerAsync)
    staged,          // device -> pinned host -> device, the path P2P must beat
    host_to_device,  // pinned host -> device (src ignored)
    device_to_host,  // device -> pinned host (dst ignored)
};

struct CopyJob {
    CopyKind kind = CopyKind::peer;
    BufferId dst = -1;
    BufferId src = -1;
    StreamId stream = -1;
};

// A transfer by kernels on the SMs (model::ProbePath other than ce): what NCCL's P2P
// transport and vLLM's custom all-reduce do instead of copies (docs/probe.md, "Paths").
struct TransferJob {
    model::ProbePath path = model::ProbePath::sm_store;
    BufferId dst = -1;
    BufferId src = -1;
    // sm_store and the handshake's writer: a stream of the source device; sm_load: of the
    // destination device. The transfer is timed with events on it (a handshake: on
    // wait_stream, around the waiter).
    StreamId stream = -1;
    // Handshake only: the destination's stream for the resident waiter, the buffer of
    // kHandshakeFlagBytes on the destination (the flag word, then what the waiter found),
    // the payload's pattern seed (the flag's value derives from it), and how long the waiter
    // spins before it calls the flag lost.
    StreamId wait_stream = -1;
    BufferId flag = -1;
    std::uint32_t seed = 0;
    std::chrono::nanoseconds budget{0};
};

inline constexpr std::size_t kHandshakeFlagBytes = 32;

// The flag value the writer stores for a payload of `seed`: never the sentinel the flag
// buffer is reset to, never zero.
constexpr std::uint32_t handshake_flag_value(std::uint32_t seed) {
    const std::uint32_t v = seed | 1U;
    return v == kSentinelBits ? kSentinelStandIn : v;
}

// What the handshake's waiter wrote: whether the flag arrived within its budget, and the
// payload as it found it right after the flag (nothing counted when the flag never came).
struct HandshakeCounts {
    bool flag_seen = false;
    VerifyCounts payload;

    friend bool operator==(const HandshakeCounts&, const HandshakeCounts&) = default;
};

// Host bytes moved by the engine itself (verification and fills), for the cost benchmark.
struct EngineCounters {
    std::uint64_t host_bytes_in = 0;   // device -> host
    std::uint64_t host_bytes_out = 0;  // host -> device
};

class CopyEngine {
public:
    CopyEngine() = default;
    CopyEngine(const CopyEngine&) = delete;
    CopyEngine& operator=(const CopyEngine&) = delete;
    virtual ~CopyEngine() = default;

    virtual int device_count() const = 0;
    // Which path a peer copy from `src` to `dst` takes (peer access enabled or not).
    virtual model::CopyPath path(int src, int dst) const = 0;
    // Where verify() compares.
    virtual model::VerifySite verify_site() const = 0;

    // A buffer of `bytes` (a multiple of 4) on `device`. Failure means "could not allocate".
    virtual util::Expected<BufferId> allocate(int device, std::size_t bytes) = 0;
    virtual void release(BufferId buffer) = 0;
    // A stream on `device`; the engine owns it until it is destroyed.
    virtual util::Expected<StreamId> create_stream(int device) = 0;

    // Enqueue on `stream`: the destination sentinel, the source pattern, a copy.
    virtual util::Expected<void> fill_sentinel(BufferId buffer, StreamId stream) = 0;
    virtual util::Expected<void> fill_pattern(BufferId buffer,
                                              std::uint32_t seed,
                                              StreamId stream) = 0;
    // Whole-buffer copy; the engine times it (events) when it can.
    virtual util::Expected<void> enqueue_copy(const CopyJob& job) = 0;

    // Waits until `stream` is idle, at most `timeout`: past it the error code is
    // util::ErrorCode::timeout and the engine must not be used again. Returns the seconds
    // the last copy enqueued on the stream took, when the engine timed it.
    virtual util::Expected<std::optional<double>> synchronize(
        StreamId stream, std::chrono::milliseconds timeout) = 0;

    // Compares `buffer` with the pattern for `seed` (on the device or the host).
    virtual util::Expected<VerifyCounts> verify(BufferId buffer,
                                                std::uint32_t seed,
                                                StreamId stream,
                                                std::chrono::milliseconds timeout) = 0;

    // Runs every job `iterations` times, each on its own stream and all streams at once,
    // and returns per job the seconds its stream took (events; the first job's stream
    // starts the clock for the jobs on it).
    virtual util::Expected<std::vector<double>> measure(const std::vector<CopyJob>& jobs,
                                                        int iterations,
                                                        std::chrono::milliseconds timeout) = 0;

    // Why `path` cannot run from device `src` to `dst` here (the kernels did not load, the
    // driver refused the peer mapping); nullopt when it can. ce always can.
    virtual std::optional<std::string> unsupported(model::ProbePath path,
                                                   int src,
                                                   int dst) const = 0;
    // Enqueues an SM-path transfer (job.path is not ce).
    virtual util::Expected<void> enqueue_transfer(const TransferJob& job) = 0;
    // What the handshake's waiter left in `flag`, read on `stream` (a stream of the flag's
    // device) once the waiter's stream was synchronised.
    virtual util::Expected<HandshakeCounts> handshake_result(BufferId flag,
                                                             StreamId stream,
                                                             std::chrono::milliseconds timeout) = 0;

    virtual EngineCounters counters() const = 0;
};

}  // namespace peergate::engine
