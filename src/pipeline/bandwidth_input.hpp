// SPDX-License-Identifier: Apache-2.0
// --bandwidth FILE for `place` and `doctor`: a `peergate bench --json` result, taken only
// when it was measured on this machine's GPUs (a shared file system makes another node's
// result easy to pass by mistake).
#pragma once

#include "model/topology.hpp"
#include "sources/documents/bench_file.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::pipeline {

// Reads `path` and checks it against `topology`'s GPUs (no check without a topology). The
// error starts with "--bandwidth " and says what was wrong.
util::Expected<sources::documents::BenchFile> read_bandwidth_file(const std::string& path,
                                                                  const model::Topology* topology);

}  // namespace peergate::pipeline
