// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_fabric.hpp"

namespace peergate::nvml {

namespace {

using Answer = util::Expected<std::optional<model::GpuFabric>>;

// A state byte a newer driver adds is one we do not know: never taken for completed.
model::FabricState state_of(nvmlGpuFabricState_t state) {
    return state <= static_cast<nvmlGpuFabricState_t>(model::FabricState::completed)
               ? static_cast<model::FabricState>(state)
               : model::FabricState::unknown;
}

template <typename Info>
model::GpuFabric fabric_of(const Info& info) {
    return model::GpuFabric{.state = state_of(info.state),
                            .status = static_cast<int>(info.status),
                            .clique_id = info.cliqueId,
                            .cluster_uuid = model::format_cluster_uuid(info.clusterUuid),
                            .health_mask = std::nullopt};
}

Answer unsupported_or_failed(NvmlCalls& nvml, nvmlReturn_t rc, const char* call) {
    if (rc == NVML_ERROR_NOT_SUPPORTED) {
        return std::optional<model::GpuFabric>(model::GpuFabric{});
    }
    return nvml.failed(rc, call);
}

Answer read_unversioned(NvmlCalls& nvml, nvmlDevice_t device) {
    nvmlGpuFabricInfo_t info{};
    const nvmlReturn_t rc = nvml(nvml.api().nvmlDeviceGetGpuFabricInfo, device, &info);
    if (rc != NVML_SUCCESS) {
        return unsupported_or_failed(nvml, rc, "nvmlDeviceGetGpuFabricInfo");
    }
    return std::optional<model::GpuFabric>(fabric_of(info));
}

}  // namespace

Answer read_fabric(NvmlCalls& nvml, nvmlDevice_t device) {
    const auto& api = nvml.api();
    if (api.nvmlDeviceGetGpuFabricInfoV != nullptr) {
        nvmlGpuFabricInfo_v2_t info{};
        info.version = NVML_GPU_FABRIC_INFO_V2;
        const nvmlReturn_t rc = nvml(api.nvmlDeviceGetGpuFabricInfoV, device, &info);
        if (rc == NVML_SUCCESS) {
            auto fabric = fabric_of(info);
            fabric.health_mask = info.healthMask;
            return std::optional<model::GpuFabric>(std::move(fabric));
        }
        if (rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH ||
            api.nvmlDeviceGetGpuFabricInfo == nullptr) {
            return unsupported_or_failed(nvml, rc, "nvmlDeviceGetGpuFabricInfoV");
        }
    }
    if (api.nvmlDeviceGetGpuFabricInfo != nullptr) {
        return read_unversioned(nvml, device);
    }
    return std::optional<model::GpuFabric>();
}

}  // namespace peergate::nvml
