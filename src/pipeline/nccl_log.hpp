// SPDX-License-Identifier: Apache-2.0
// `peergate nccl-log`'s reading: every log file streamed through one parser (in pieces on
// several threads where a file is large enough), and the --topology file to judge it by.
#pragma once

#include "model/nccl_log.hpp"
#include "model/topology.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::pipeline {

struct NcclLogRead {
    model::NcclLog log;
    std::optional<model::Topology> topology;  // with --topology
};

// Reads `files` ("-" is stdin) and `topology_path` ("" : none) with up to `threads` threads
// (0: the default). The error says which input was wrong ("--topology ..." for that file).
util::Expected<NcclLogRead> read_nccl_logs(const std::vector<std::string>& files,
                                           const std::string& topology_path,
                                           unsigned threads);

}  // namespace peergate::pipeline
