// SPDX-License-Identifier: Apache-2.0
// Each NVLink of the examined GPUs as the textfile reports it: its state and its error
// counters, whatever the state. NVML is asked for the counters of active links only
// (sources/nvml/nvml_record.hpp), so a link that is down, or answered no counter, keeps the
// counts the replaced textfile held for it (ExportRun::previous_link_errors): a counter that
// vanished or fell when a link went down would read to Prometheus as a reset, and the counts
// coming back with the link as new errors (docs/export.md, prometheus).
#pragma once

#include "model/nvlink_errors.hpp"
#include "report/exports/facts.hpp"

#include <array>
#include <optional>
#include <vector>

namespace peergate::report::exports {

struct NvlinkLinkReport {
    int gpu = 0;  // nvidia-smi index
    int link = 0;
    std::optional<bool> up;  // nullopt: this run's walk did not list the link
    bool read = false;       // this run read at least one of its counters
    // Per model::NvlinkCounter: this run's reading, else the count carried over, else unknown.
    std::array<std::optional<double>, model::kNvlinkCounters> counts;
};

// Every link NVML's walk listed for an examined GPU, and every link the replaced textfile
// held counts for on the same GPU (by UUID); by GPU, then link.
std::vector<NvlinkLinkReport> nvlink_link_reports(const ExportFacts& facts);

}  // namespace peergate::report::exports
