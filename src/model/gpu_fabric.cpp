// SPDX-License-Identifier: Apache-2.0
#include "model/gpu_fabric.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace peergate::model {

namespace {

// NVML_GPU_FABRIC_HEALTH_MASK_*: each field two bits wide, 0 NOT_SUPPORTED, 1 TRUE, 2 FALSE.
constexpr unsigned kHealthFieldMask = 0x3;
constexpr unsigned kHealthTrue = 1;
constexpr unsigned kShiftDegradedBandwidth = 0;
constexpr unsigned kShiftRouteUnhealthy = 4;

constexpr std::array<std::string_view, 5> kNames{
    "not_supported", "not_started", "in_progress", "completed", "unknown"};
constexpr std::array<std::string_view, 5> kDisplay{
    "N/A", "Not Started", "In Progress", "Completed", "Unknown"};

bool health_field_true(const std::optional<std::uint32_t>& mask, unsigned shift) {
    return mask && ((*mask >> shift) & kHealthFieldMask) == kHealthTrue;
}

}  // namespace

bool GpuFabric::bandwidth_degraded() const {
    return health_field_true(health_mask, kShiftDegradedBandwidth);
}

bool GpuFabric::route_unhealthy() const {
    return health_field_true(health_mask, kShiftRouteUnhealthy);
}

std::string_view to_string(FabricState state) {
    return kNames[static_cast<std::size_t>(state)];
}

std::string_view display_name(FabricState state) {
    return kDisplay[static_cast<std::size_t>(state)];
}

std::optional<FabricState> parse_fabric_state(std::string_view text) {
    const auto* found = std::find(kNames.begin(), kNames.end(), text);
    if (found == kNames.end()) {
        return std::nullopt;
    }
    return static_cast<FabricState>(found - kNames.begin());
}

std::optional<ClusterUuidBytes> parse_cluster_uuid(std::string_view text) {
    ClusterUuidBytes bytes{};
    if (text.empty()) {
        return bytes;
    }
    constexpr std::size_t kLength = 36;
    if (text.size() != kLength) {
        return std::nullopt;
    }
    std::size_t byte = 0;
    for (std::size_t i = 0; i < kLength; i += 2) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i] != '-') {
                return std::nullopt;
            }
            ++i;
        }
        const auto value = util::parse_hex<unsigned char>(text.substr(i, 2));
        if (!value || byte >= bytes.size()) {
            return std::nullopt;
        }
        bytes[byte++] = *value;
    }
    return bytes;
}

std::string format_cluster_uuid(const unsigned char (&bytes)[16]) {  // NOLINT(*-avoid-c-arrays)
    if (std::all_of(std::begin(bytes), std::end(bytes), [](unsigned char b) { return b == 0; })) {
        return {};
    }
    std::string out;
    for (std::size_t i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            out += '-';
        }
        out += fmt::format("{:02x}", bytes[i]);
    }
    return out;
}

}  // namespace peergate::model
