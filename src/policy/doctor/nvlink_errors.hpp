// SPDX-License-Identifier: Apache-2.0
// NVLink error counters. A link that fails a CRC check sends the flit again (a replay), and
// one that fails too often retrains (a recovery): every byte still arrives, so capability
// queries and a data probe both pass, while the link runs slower and stalls. The counters
// are where a marginal link shows before it goes down (Xid 74). Pure.
#pragma once

#include "model/finding.hpp"
#include "policy/doctor/doctor.hpp"

#include <string_view>
#include <vector>

namespace peergate::policy::doctor {

// One `nvlink_errors` finding per GPU whose links count errors since the driver loaded: a
// warning where a link retrained, info where links only replayed or failed CRC checks
// (a few over weeks are ordinary; the remedy says how to tell whether they grow).
std::vector<model::Finding> nvlink_error_findings(const std::vector<GpuLinks>& links);

// One `nvlink_errors_under_load` finding per GPU whose counters grew between the read
// before a load and the one after (the doctor's --probe, a job watch ran): an error where a
// link retrained under the load, a warning where links replayed or failed CRC checks.
// `while_what` names the load in the message ("While the probe moved data, ...").
std::vector<model::Finding> nvlink_errors_under_load_findings(
    const std::vector<GpuLinks>& before,
    const std::vector<GpuLinks>& after,
    std::string_view while_what = "the probe moved data");

}  // namespace peergate::policy::doctor
