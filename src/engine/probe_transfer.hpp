// SPDX-License-Identifier: Apache-2.0
// One ordered pair's transfer in a repeat of the integrity run, on the path its cell names
// (docs/probe.md, "Paths"): which streams carry it, how it starts, how the run waits for it
// and how what arrived is compared. The runner (probe_runner) fills and schedules; this file
// knows the paths.
#pragma once

#include "engine/copy_engine.hpp"
#include "engine/probe_plan.hpp"
#include "engine/probe_streams.hpp"

#include <chrono>
#include <cstdint>
#include <optional>

namespace peergate::engine {

struct TransferEnds {
    PositionPair pair;
    model::ProbePath path = model::ProbePath::ce;
    BufferId src = -1;
    BufferId dst = -1;
    BufferId flag = -1;  // handshake only
};

// Enqueues the transfer (the handshake's waiter first, then its writer). Streams are made on
// first use.
util::Expected<void> start_transfer(CopyEngine& engine,
                                    ProbeStreams& streams,
                                    const TransferEnds& ends,
                                    std::uint32_t seed,
                                    std::chrono::nanoseconds budget);

// Waits for the transfer's streams, at most `timeout` each; the seconds it took when timed.
util::Expected<std::optional<double>> finish_transfer(CopyEngine& engine,
                                                      const ProbeStreams& streams,
                                                      const TransferEnds& ends,
                                                      std::chrono::milliseconds timeout);

// What arrived at the destination: the pattern compared there (flag_seen is true but for a
// handshake whose flag never came).
util::Expected<HandshakeCounts> check_transfer(CopyEngine& engine,
                                               const ProbeStreams& streams,
                                               const TransferEnds& ends,
                                               std::uint32_t seed,
                                               std::chrono::milliseconds timeout);

}  // namespace peergate::engine
