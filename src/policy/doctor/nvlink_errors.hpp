// SPDX-License-Identifier: Apache-2.0
// NVLink error counters. A link that fails a CRC check sends the flit again (a replay), and
// one that fails too often retrains (a recovery): every byte still arrives, so capability
// queries and a data probe both pass, while the link runs slower and stalls. The counters
// are where a marginal link shows before it goes down (Xid 74). Pure.
#pragma once

#include "model/finding.hpp"
#include "policy/doctor/doctor.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace peergate::policy::doctor {

// One `nvlink_errors` finding per GPU whose links count errors since the driver loaded,
// graded by the counts (docs/doctor.md, "How NVLink error counts are graded"): per link and
// counter, a recovery (the link retrained) is a warning and 10 an error; 100 replays, CRC or
// effective errors of one kind a warning and 1000 an error; fewer a note. The same counts give
// the same severity on any GPU; the GPU's finding is as severe as its worst link.
std::vector<model::Finding> nvlink_error_findings(const std::vector<GpuLinks>& links);

// One `nvlink_errors_under_load` finding per GPU whose counters grew between the read
// before a load and the one after (the doctor's --probe, a job watch ran), graded one step
// above the standing counts: a link that retrained, or gained 100 or more of one kind, is an
// error; where `load_seconds` (how long the load moved data) is known, so is one that gained
// 100 or more a second (DCGM's limit); any other growth a warning.
// `while_what` names the load in the message ("While the probe moved data, ...").
std::vector<model::Finding> nvlink_errors_under_load_findings(
    const std::vector<GpuLinks>& before,
    const std::vector<GpuLinks>& after,
    std::string_view while_what = "the probe moved data",
    std::optional<double> load_seconds = std::nullopt);

}  // namespace peergate::policy::doctor
