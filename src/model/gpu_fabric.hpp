// SPDX-License-Identifier: Apache-2.0
// A GPU's registration with the NVLink fabric of an NVSwitch system, as NVML reports it
// (nvmlDeviceGetGpuFabricInfoV, Hopper and later). The fabric manager (and on NVLink5
// baseboards the NVLink subnet manager) registers each GPU: Not Started, In Progress,
// Completed. Until then the driver refuses CUDA work (CUDA_ERROR_SYSTEM_NOT_READY), so the
// GPUs' NVLinks carry nothing, whatever the link states say.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace peergate::model {

// NVML_GPU_FABRIC_STATE_*: 0 NOT_SUPPORTED, 1 NOT_STARTED, 2 IN_PROGRESS, 3 COMPLETED;
// `unknown` is a value a newer driver adds, never taken for completed.
enum class FabricState { not_supported, not_started, in_progress, completed, unknown };

struct GpuFabric {
    FabricState state = FabricState::not_supported;
    int status = 0;  // nvmlReturn_t of the registration; NVML defines it once completed
    unsigned clique_id = 0;
    std::string cluster_uuid;                  // "" when NVML gave sixteen zero bytes
    std::optional<std::uint32_t> health_mask;  // the v2 structure's; absent from v1

    // Registered and usable: completed with a success status.
    bool ready() const { return state == FabricState::completed && status == 0; }

    // The health mask's DEGRADED_BW field (bits 0-1) says TRUE: fewer NVLinks than the
    // fabric was built with carry this GPU's traffic.
    bool bandwidth_degraded() const;
    // Its ROUTE_UNHEALTHY field (bits 4-5) says TRUE: some routes to peers are unhealthy.
    bool route_unhealthy() const;

    friend bool operator==(const GpuFabric&, const GpuFabric&) = default;
};

// "not_supported", "not_started", "in_progress", "completed", "unknown".
std::string_view to_string(FabricState state);
// As nvidia-smi -q prints it: "N/A", "Not Started", "In Progress", "Completed" ("Unknown").
std::string_view display_name(FabricState state);
std::optional<FabricState> parse_fabric_state(std::string_view text);

using ClusterUuidBytes = std::array<unsigned char, 16>;

// The sixteen bytes of a cluster UUID in the 8-4-4-4-12 form; "" when they are all zero.
std::string format_cluster_uuid(const unsigned char (&bytes)[16]);  // NOLINT(*-avoid-c-arrays)
// Its inverse: 32 hex digits in the 8-4-4-4-12 form, else nullopt; "" is all zeros.
std::optional<ClusterUuidBytes> parse_cluster_uuid(std::string_view text);

}  // namespace peergate::model
