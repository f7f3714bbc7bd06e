// SPDX-License-Identifier: Apache-2.0
// The NVML function table: every entry point peergate calls, bound by its exported
// (versioned) name from one dlopen'd library (docs/style.md 20, 21).
#pragma once

#include "sources/nvml/nvml_abi.hpp"
#include "util/dynamic_library.hpp"
#include "util/expected.hpp"

#include <string>
#include <vector>

namespace peergate::nvml {

// NOLINTBEGIN(readability-identifier-naming): members are named after the symbols.
struct NvmlApi {
    // Required: without them there is no matrix.
    nvmlInit_v2_fn* nvmlInit_v2 = nullptr;
    nvmlShutdown_fn* nvmlShutdown = nullptr;
    nvmlErrorString_fn* nvmlErrorString = nullptr;
    nvmlDeviceGetCount_v2_fn* nvmlDeviceGetCount_v2 = nullptr;
    nvmlDeviceGetHandleByIndex_v2_fn* nvmlDeviceGetHandleByIndex_v2 = nullptr;
    // _v3: the unversioned and _v2 getters write the older layout (docs/driver-facts.md).
    nvmlDeviceGetPciInfo_v3_fn* nvmlDeviceGetPciInfo_v3 = nullptr;
    nvmlDeviceGetName_fn* nvmlDeviceGetName = nullptr;
    nvmlDeviceGetUUID_fn* nvmlDeviceGetUUID = nullptr;
    nvmlDeviceGetNvLinkState_fn* nvmlDeviceGetNvLinkState = nullptr;
    nvmlDeviceGetNvLinkRemotePciInfo_v2_fn* nvmlDeviceGetNvLinkRemotePciInfo_v2 = nullptr;
    nvmlDeviceGetP2PStatus_fn* nvmlDeviceGetP2PStatus = nullptr;
    nvmlDeviceGetTopologyCommonAncestor_fn* nvmlDeviceGetTopologyCommonAncestor = nullptr;
    // Optional: older drivers lack them; the answer then falls back or stays unknown.
    nvmlDeviceGetNvLinkRemoteDeviceType_fn* nvmlDeviceGetNvLinkRemoteDeviceType = nullptr;
    nvmlDeviceGetMemoryAffinity_fn* nvmlDeviceGetMemoryAffinity = nullptr;
    nvmlDeviceGetCpuAffinity_fn* nvmlDeviceGetCpuAffinity = nullptr;
    nvmlDeviceGetNvLinkErrorCounter_fn* nvmlDeviceGetNvLinkErrorCounter = nullptr;
    nvmlDeviceGetFieldValues_fn* nvmlDeviceGetFieldValues = nullptr;
    // Hopper and later; newer drivers add the V form, which carries the health mask.
    nvmlDeviceGetGpuFabricInfoV_fn* nvmlDeviceGetGpuFabricInfoV = nullptr;
    nvmlDeviceGetGpuFabricInfo_fn* nvmlDeviceGetGpuFabricInfo = nullptr;
    nvmlDeviceGetMigMode_fn* nvmlDeviceGetMigMode = nullptr;
    // watch: PCIe throughput (Maxwell and newer; not in vGPU guests).
    nvmlDeviceGetPcieThroughput_fn* nvmlDeviceGetPcieThroughput = nullptr;
};

// NOLINTEND(readability-identifier-naming)

// Binds the table from `library`. Every missing required symbol is named in one error
// (code not_found); missing optional symbols stay nullptr.
util::Expected<NvmlApi> load_nvml_api(const util::DynamicLibrary& library);

// Under --simulate (`machine` the machine file; "" does nothing): names the machine to the
// simulated NVML, so that it answers without PEERGATE_SIM_MACHINE in this process's
// environment, which the C API's callers do not have and the API may not set. A library
// that does not export peergate_sim_nvml_use_machine (a real NVML) is left alone.
void choose_simulated_machine(const util::DynamicLibrary& library, const std::string& machine);

// "nvmlDeviceGetP2PStatus failed: 999 (Unknown Error)": the call, the code, NVML's text.
std::string describe_nvml_error(const NvmlApi& api, nvmlReturn_t result, const char* call);

}  // namespace peergate::nvml
