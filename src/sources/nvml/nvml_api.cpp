// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_api.hpp"

#include "util/strings.hpp"
#include "util/symbol_binder.hpp"

#include <fmt/format.h>

namespace peergate::nvml {

namespace {

using Binder = util::SymbolBinder;

}  // namespace

void choose_simulated_machine(const util::DynamicLibrary& library, const std::string& machine) {
    if (machine.empty()) {
        return;
    }
    if (auto* use = library.function<void(const char*)>("peergate_sim_nvml_use_machine")) {
        use(machine.c_str());
    }
}

util::Expected<NvmlApi> load_nvml_api(const util::DynamicLibrary& library) {
    NvmlApi api;
    Binder bind(library);
    bind.required(api.nvmlInit_v2, "nvmlInit_v2");
    bind.required(api.nvmlShutdown, "nvmlShutdown");
    bind.required(api.nvmlErrorString, "nvmlErrorString");
    bind.required(api.nvmlDeviceGetCount_v2, "nvmlDeviceGetCount_v2");
    bind.required(api.nvmlDeviceGetHandleByIndex_v2, "nvmlDeviceGetHandleByIndex_v2");
    bind.required(api.nvmlDeviceGetPciInfo_v3, "nvmlDeviceGetPciInfo_v3");
    bind.required(api.nvmlDeviceGetName, "nvmlDeviceGetName");
    bind.required(api.nvmlDeviceGetUUID, "nvmlDeviceGetUUID");
    bind.required(api.nvmlDeviceGetNvLinkState, "nvmlDeviceGetNvLinkState");
    bind.required(api.nvmlDeviceGetNvLinkRemotePciInfo_v2, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    bind.required(api.nvmlDeviceGetP2PStatus, "nvmlDeviceGetP2PStatus");
    bind.required(api.nvmlDeviceGetTopologyCommonAncestor, "nvmlDeviceGetTopologyCommonAncestor");
    bind.optional(api.nvmlDeviceGetNvLinkRemoteDeviceType, "nvmlDeviceGetNvLinkRemoteDeviceType");
    bind.optional(api.nvmlDeviceGetMemoryAffinity, "nvmlDeviceGetMemoryAffinity");
    bind.optional(api.nvmlDeviceGetCpuAffinity, "nvmlDeviceGetCpuAffinity");
    bind.optional(api.nvmlDeviceGetNvLinkErrorCounter, "nvmlDeviceGetNvLinkErrorCounter");
    bind.optional(api.nvmlDeviceGetFieldValues, "nvmlDeviceGetFieldValues");
    bind.optional(api.nvmlDeviceGetGpuFabricInfoV, "nvmlDeviceGetGpuFabricInfoV");
    bind.optional(api.nvmlDeviceGetGpuFabricInfo, "nvmlDeviceGetGpuFabricInfo");
    bind.optional(api.nvmlDeviceGetMigMode, "nvmlDeviceGetMigMode");
    bind.optional(api.nvmlDeviceGetPcieThroughput, "nvmlDeviceGetPcieThroughput");
    if (!bind.missing().empty()) {
        return util::unexpected(util::ErrorCode::not_found,
                                fmt::format("{} lacks required NVML entry points: {}",
                                            library.path(),
                                            util::join(bind.missing(), ", ")));
    }
    return api;
}

std::string describe_nvml_error(const NvmlApi& api, nvmlReturn_t result, const char* call) {
    const char* text = api.nvmlErrorString != nullptr ? api.nvmlErrorString(result) : nullptr;
    return fmt::format("{} failed: {} ({})",
                       call,
                       static_cast<int>(result),
                       text != nullptr ? text : "no description");
}

}  // namespace peergate::nvml
