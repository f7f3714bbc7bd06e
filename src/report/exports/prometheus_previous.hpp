// SPDX-License-Identifier: Apache-2.0
// What the next run carries over from a textfile this renderer wrote (the one --output
// replaces): the last success, and each link's NVLink error counters. Only lines in the shape
// export_prometheus writes are taken; anything else is ignored, so a file edited by hand, or
// written by another tool, carries nothing it did not mean.
#pragma once

#include "report/exports/facts.hpp"

#include <map>
#include <optional>
#include <string_view>

namespace peergate::report::exports {

// The last success recorded in a textfile this renderer wrote (0 or absent: none).
std::optional<double> last_success_in(std::string_view textfile);

// Each peergate_gpu_nvlink_link_errors_total sample, keyed by its GPU's UUID (the file's own
// peergate_gpu_info for that index); a sample whose GPU has no UUID there, or whose labels or
// value are not what the renderer writes, is left out.
std::map<NvlinkCounterKey, double> nvlink_link_errors_in(std::string_view textfile);

}  // namespace peergate::report::exports
