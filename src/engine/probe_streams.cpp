// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_streams.hpp"

namespace peergate::engine {

util::Expected<StreamId> ProbeStreams::for_device(int device) {
    if (auto it = devices_.find(device); it != devices_.end()) {
        return it->second;
    }
    auto stream = engine_.create_stream(device);
    if (stream) {
        devices_[device] = *stream;
    }
    return stream;
}

util::Expected<StreamId> ProbeStreams::for_pair(PositionPair pair) {
    return find_or_make(pairs_, pair, pair.src);
}

util::Expected<StreamId> ProbeStreams::for_pair_at_destination(PositionPair pair) {
    return find_or_make(destination_pairs_, pair, pair.dst);
}

util::Expected<StreamId> ProbeStreams::find_or_make(
    std::map<std::pair<int, int>, StreamId>& streams, PositionPair pair, int device) {
    const auto key = std::make_pair(pair.src, pair.dst);
    if (auto it = streams.find(key); it != streams.end()) {
        return it->second;
    }
    auto stream = engine_.create_stream(device);
    if (stream) {
        streams[key] = *stream;
    }
    return stream;
}

}  // namespace peergate::engine
