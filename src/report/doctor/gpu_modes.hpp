// SPDX-License-Identifier: Apache-2.0
// The modes NVML reports per GPU that decide whether its NVLinks carry anything: its NVSwitch
// fabric registration (model/gpu_fabric.hpp) and its MIG mode (model/mig_mode.hpp), as JSON
// (layers.peer_access.nvswitch_fabric, .mig) and as the text that joins each examined GPU's
// line under Links. Pure.
#pragma once

#include "model/gpu_fabric.hpp"
#include "model/mig_mode.hpp"
#include "policy/doctor/doctor.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace peergate::report::doctor {

// [{"gpu", "state", "status", "clique_id", "cluster_uuid", "health_mask", "ready",
//   "bandwidth_degraded", "route_unhealthy"}] for the examined GPUs on a fabric.
nlohmann::ordered_json nvswitch_fabric_to_json(const policy::doctor::DoctorInput& input);

// "fabric Completed (clique 32766)" (the clique where one is set), "fabric In Progress",
// "fabric Completed, status 999",
// with ", bandwidth degraded" or ", routes unhealthy" where the health mask says so.
std::string fabric_text(const model::GpuFabric& fabric);

// [{"gpu", "enabled", "pending"}] for the examined GPUs NVML gives a MIG mode.
nlohmann::ordered_json mig_to_json(const policy::doctor::DoctorInput& input);

// "MIG on", "MIG on, off after a reset", "MIG off, on after a reset"; "" for MIG off.
std::string mig_text(const model::MigMode& mig);

}  // namespace peergate::report::doctor
