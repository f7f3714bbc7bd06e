// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_transfer.hpp"

namespace peergate::engine {

namespace {

using model::ProbePath;

// The transfer is timed on the copy's or the storing kernel's stream on the source, or on
// the loading kernel's or the waiter's on the destination.
bool timed_at_destination(ProbePath path) {
    return path == ProbePath::sm_load || path == ProbePath::handshake;
}

util::Expected<StreamId> timed_stream(ProbeStreams& streams, const TransferEnds& ends) {
    return timed_at_destination(ends.path) ? streams.for_pair_at_destination(ends.pair)
                                           : streams.for_pair(ends.pair);
}

StreamId made_timed_stream(const ProbeStreams& streams, const TransferEnds& ends) {
    return timed_at_destination(ends.path) ? streams.pair_at_destination(ends.pair)
                                           : streams.pair(ends.pair);
}

}  // namespace

util::Expected<void> start_transfer(CopyEngine& engine,
                                    ProbeStreams& streams,
                                    const TransferEnds& ends,
                                    std::uint32_t seed,
                                    std::chrono::nanoseconds budget) {
    auto stream = timed_stream(streams, ends);
    if (!stream) {
        return util::unexpected(stream.error());
    }
    if (ends.path == ProbePath::ce) {
        return engine.enqueue_copy(
            {.kind = CopyKind::peer, .dst = ends.dst, .src = ends.src, .stream = *stream});
    }
    TransferJob job{.path = ends.path, .dst = ends.dst, .src = ends.src, .stream = *stream};
    if (ends.path == ProbePath::handshake) {
        // The waiter is timed on the destination; the writer runs on the source's stream.
        auto writer = streams.for_pair(ends.pair);
        if (!writer) {
            return util::unexpected(writer.error());
        }
        job.wait_stream = *stream;
        job.stream = *writer;
        job.flag = ends.flag;
        job.seed = seed;
        job.budget = budget;
    }
    return engine.enqueue_transfer(job);
}

util::Expected<std::optional<double>> finish_transfer(CopyEngine& engine,
                                                      const ProbeStreams& streams,
                                                      const TransferEnds& ends,
                                                      std::chrono::milliseconds timeout) {
    auto seconds = engine.synchronize(made_timed_stream(streams, ends), timeout);
    if (!seconds || ends.path != ProbePath::handshake) {
        return seconds;
    }
    // The writer ended before the waiter could see its flag, or the flag was lost and the
    // waiter's budget ran out: either way its stream is idle or about to be.
    auto writer = engine.synchronize(streams.pair(ends.pair), timeout);
    if (!writer) {
        return util::unexpected(writer.error());
    }
    return seconds;
}

util::Expected<HandshakeCounts> check_transfer(CopyEngine& engine,
                                               const ProbeStreams& streams,
                                               const TransferEnds& ends,
                                               std::uint32_t seed,
                                               std::chrono::milliseconds timeout) {
    const StreamId at_destination = streams.device(ends.pair.dst);
    if (ends.path == ProbePath::handshake) {
        return engine.handshake_result(ends.flag, at_destination, timeout);
    }
    auto counts = engine.verify(ends.dst, seed, at_destination, timeout);
    if (!counts) {
        return util::unexpected(counts.error());
    }
    return HandshakeCounts{.flag_seen = true, .payload = *counts};
}

}  // namespace peergate::engine
