// SPDX-License-Identifier: Apache-2.0
// The doctor's NVSwitch fabric layer: each examined GPU's registration as NVML reported it
// (model/gpu_fabric.hpp), as JSON (layers.peer_access.nvswitch_fabric) and as the text that
// joins the GPU's line under Links. Pure.
#pragma once

#include "model/gpu_fabric.hpp"
#include "policy/doctor.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace peergate::report {

// [{"gpu", "state", "status", "clique_id", "cluster_uuid", "health_mask", "ready",
//   "bandwidth_degraded", "route_unhealthy"}] for the examined GPUs on a fabric.
nlohmann::ordered_json nvswitch_fabric_to_json(const policy::DoctorInput& input);

// "fabric Completed (clique 32766)" (the clique where one is set), "fabric In Progress",
// "fabric Completed, status 999",
// with ", bandwidth degraded" or ", routes unhealthy" where the health mask says so.
std::string fabric_text(const model::GpuFabric& fabric);

}  // namespace peergate::report
