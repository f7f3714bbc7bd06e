// SPDX-License-Identifier: Apache-2.0
// The user-space driver (NVML, nvidia-smi, libcuda) and the running kernel module are
// different versions, most often after a driver upgrade without a reboot: NVML refuses to
// start (NVML_ERROR_LIB_RM_VERSION_MISMATCH, "RM has detected an NVML/RM version mismatch"),
// nvidia-smi prints "Failed to initialize NVML: Driver/library version mismatch" and then
// "NVML library version: 580.159", and CUDA's cuInit fails (803). Pure.
#pragma once

#include "model/finding.hpp"
#include "policy/doctor/doctor.hpp"

#include <optional>
#include <string>

namespace peergate::policy::doctor {

// The library version nvidia-smi printed after a mismatch ("580.159"), from the topology
// tiers' reasons; "" when none said it.
std::string mismatched_library_version(const model::Discovery& discovery);

// driver_version_mismatch (error): a topology tier failed for a driver/library version
// mismatch; names the running module's version (/proc/driver/nvidia/version) and the
// library's, where read.
std::optional<model::Finding> driver_mismatch_finding(const DoctorInput& input);

}  // namespace peergate::policy::doctor
