// SPDX-License-Identifier: Apache-2.0
// The streams an integrity run fills, copies and checks on, made on first use and kept for
// the run: one per device for fills and checks, and one per ordered pair for its copies, so
// that the pairs of a concurrent group are in flight at once.
#pragma once

#include "engine/copy_engine.hpp"
#include "engine/probe_plan.hpp"
#include "util/expected.hpp"

#include <map>
#include <utility>

namespace peergate::engine {

class ProbeStreams {
public:
    explicit ProbeStreams(CopyEngine& engine) : engine_(engine) {}

    // The device's stream, made now if it is the first use.
    util::Expected<StreamId> for_device(int device);

    // The pair's copy stream, a stream of its source device, made now if it is the first use.
    util::Expected<StreamId> for_pair(PositionPair pair);

    // The pair's stream on its destination device (an SM load, the handshake's waiter).
    util::Expected<StreamId> for_pair_at_destination(PositionPair pair);

    // Streams made before (the caller made them in this repeat).
    StreamId device(int device) const { return devices_.at(device); }

    StreamId pair(PositionPair pair) const { return pairs_.at({pair.src, pair.dst}); }

    StreamId pair_at_destination(PositionPair pair) const {
        return destination_pairs_.at({pair.src, pair.dst});
    }

private:
    util::Expected<StreamId> find_or_make(std::map<std::pair<int, int>, StreamId>& streams,
                                          PositionPair pair,
                                          int device);

    CopyEngine& engine_;
    std::map<int, StreamId> devices_;
    std::map<std::pair<int, int>, StreamId> pairs_;
    std::map<std::pair<int, int>, StreamId> destination_pairs_;
};

}  // namespace peergate::engine
