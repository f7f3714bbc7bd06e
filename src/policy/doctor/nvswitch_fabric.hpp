// SPDX-License-Identifier: Apache-2.0
// The NVSwitch fabric's registration of each GPU (model/gpu_fabric.hpp). On an HGX or DGX
// baseboard the fabric manager registers every GPU before the driver accepts CUDA work; a
// GPU it has not registered fails cuInit with CUDA_ERROR_SYSTEM_NOT_READY ("system not yet
// initialized"), while nvidia-smi and NVML still list it and its links. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/gpu_fabric.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace peergate::policy::doctor {

// One `nvswitch_fabric_not_ready` error per kind of trouble (not started, in progress,
// a state this build does not know, completed with a failure status), naming its GPUs; then
// one `nvswitch_fabric_degraded` warning for registered GPUs whose health mask says the
// bandwidth is degraded or routes are unhealthy. `fabric` holds the GPUs NVML placed on a
// fabric (nvidia-smi index -> registration); `driver_version` ("580.95.05", "" unknown)
// names the fabric manager package that must match it. Where NVML says nothing (GPUs before
// Hopper: an HGX A100 baseboard) but cuInit answered CUDA_ERROR_SYSTEM_NOT_READY
// (`cuda_open_status` 802), one `nvswitch_fabric_not_ready` about the whole host says so.
std::vector<model::Finding> nvswitch_fabric_findings(const std::map<int, model::GpuFabric>& fabric,
                                                     const std::string& driver_version,
                                                     int cuda_open_status);

}  // namespace peergate::policy::doctor
