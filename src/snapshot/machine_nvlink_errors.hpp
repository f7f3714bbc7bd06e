// SPDX-License-Identifier: Apache-2.0
// A GPU's "nvlink_errors" in a machine file: per NVLink its error counters, each
// {"link": 3, "replay": 120, "recovery": 1, "crc_flit": 40, "crc_data": 0,
//  "growth": {"replay": 500}}, or NVLink5's {"link": 3, "link_recovery_events": 1,
// "effective_errors": 7} (an absent count: NVML does not answer it).
#pragma once

#include "snapshot/machine_file.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace peergate::snapshot {

util::Expected<std::vector<MachineNvlinkErrors>> parse_nvlink_errors(const nlohmann::json& gpu,
                                                                     const std::string& where);

// A GPU's "nvlink_counters": "dl" (the default) or "nvlink5", the counters its links keep.
util::Expected<model::NvlinkCounterSet> parse_nvlink_counter_set(const nlohmann::json& gpu,
                                                                 const std::string& where);

const char* to_string(model::NvlinkCounterSet set);

nlohmann::ordered_json nvlink_errors_to_json(const std::vector<MachineNvlinkErrors>& links);

}  // namespace peergate::snapshot
