// SPDX-License-Identifier: Apache-2.0
// What `peergate nccl-log` renders: the logs read, what they say and what that means.
#pragma once

#include "model/nccl_log.hpp"
#include "policy/nccl/analysis.hpp"

#include <string>
#include <vector>

namespace peergate::report::nccl {

struct NcclLogReport {
    std::vector<std::string> inputs;  // file names as given ("-" for stdin)
    std::string topology_file;        // --topology, empty when none
    const model::NcclLog* log = nullptr;
    const policy::nccl::NcclAnalysis* analysis = nullptr;
};

}  // namespace peergate::report::nccl
