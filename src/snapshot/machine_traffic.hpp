// SPDX-License-Identifier: Apache-2.0
// A machine file's "traffic": what the simulated NVML's traffic counters count while the
// machine runs, so that every verdict of `peergate watch` has a machine to show it
// (docs/machine-file.md "traffic"):
//   {"nvlink_counters": "per_link", "pcie_counters": true, "start_kib": 0,
//    "flows": [{"from": 0, "to": 1, "over": "nvlink", "gbps": 40, "start_s": 0, "stop_s": 5}]}
#pragma once

#include "snapshot/machine_file.hpp"

#include <nlohmann/json.hpp>

#include <optional>

namespace peergate::snapshot {

// The most flows a machine file may list.
inline constexpr std::size_t kMostTrafficFlows = 1024;

// The document's "traffic", nullopt when it has none. `machine` has its GPUs and matrix read:
// a flow names GPUs by index, and one over NVLink needs an NV# label between its two GPUs.
util::Expected<std::optional<MachineTraffic>> parse_traffic(const nlohmann::json& doc,
                                                            const MachineFile& machine);

nlohmann::ordered_json traffic_to_json(const MachineTraffic& traffic);

}  // namespace peergate::snapshot
