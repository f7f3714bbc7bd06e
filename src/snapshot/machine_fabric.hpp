// SPDX-License-Identifier: Apache-2.0
// A GPU's "fabric" in a machine file: its NVSwitch fabric registration as NVML reports it,
// {"state": "completed", "status": 0, "clique_id": 32766, "cluster_uuid": "...",
//  "health_mask": 0}; only "state" is required. The simulated NVML answers
// nvmlDeviceGetGpuFabricInfo(V) from it; a GPU without one answers NOT_SUPPORTED.
#pragma once

#include "model/gpu_fabric.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace peergate::snapshot {

// The "fabric" of a GPU object, nullopt when it has none.
util::Expected<std::optional<model::GpuFabric>> parse_fabric(const nlohmann::json& gpu,
                                                             const std::string& where);

nlohmann::ordered_json fabric_to_json(const model::GpuFabric& fabric);

}  // namespace peergate::snapshot
