// SPDX-License-Identifier: Apache-2.0
// One directed bandwidth measurement, as a peergate.bench/v1 file gives it (read by
// sources/documents/bench_file, weighed by placement and the doctor).
#pragma once

#include <optional>

namespace peergate::model {

struct BandwidthSample {
    int src = 0;
    int dst = 0;
    double gbps = 0.0;                  // peer-to-peer
    std::optional<double> staged_gbps;  // the same copy staged through host memory, if measured
    std::optional<double> bidirectional_gbps;  // copies both ways at once, both counted
};

}  // namespace peergate::model
