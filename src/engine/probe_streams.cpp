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
    const auto key = std::make_pair(pair.src, pair.dst);
    if (auto it = pairs_.find(key); it != pairs_.end()) {
        return it->second;
    }
    auto stream = engine_.create_stream(pair.src);
    if (stream) {
        pairs_[key] = *stream;
    }
    return stream;
}

}  // namespace peergate::engine
