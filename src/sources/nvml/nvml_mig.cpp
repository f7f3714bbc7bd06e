// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_mig.hpp"

namespace peergate::nvml {

util::Expected<std::optional<model::MigMode>> read_mig_mode(NvmlCalls& nvml, nvmlDevice_t device) {
    if (nvml.api().nvmlDeviceGetMigMode == nullptr) {
        return std::optional<model::MigMode>();
    }
    unsigned current = NVML_DEVICE_MIG_DISABLE;
    unsigned pending = NVML_DEVICE_MIG_DISABLE;
    const nvmlReturn_t rc = nvml(nvml.api().nvmlDeviceGetMigMode, device, &current, &pending);
    if (rc == NVML_ERROR_NOT_SUPPORTED) {
        return std::optional<model::MigMode>();
    }
    if (rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetMigMode");
    }
    // Any value but DISABLE is taken as on: a mode this build does not know is not "off".
    return std::optional<model::MigMode>(
        model::MigMode{.enabled = current != NVML_DEVICE_MIG_DISABLE,
                       .pending = pending != NVML_DEVICE_MIG_DISABLE});
}

}  // namespace peergate::nvml
