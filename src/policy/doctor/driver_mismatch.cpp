// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/driver_mismatch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace peergate::policy::doctor {

namespace {

constexpr std::string_view kLibraryVersion = "NVML library version: ";

// The words NVML's error string and nvidia-smi use for it.
bool says_mismatch(std::string_view reason) {
    return reason.find("Driver/library version mismatch") != std::string_view::npos ||
           reason.find("NVML/RM version mismatch") != std::string_view::npos;
}

}  // namespace

std::string mismatched_library_version(const model::Discovery& discovery) {
    for (const auto& attempt : discovery.attempts) {
        const auto at = attempt.reason.find(kLibraryVersion);
        if (at == std::string::npos) {
            continue;
        }
        const std::string_view rest =
            std::string_view(attempt.reason).substr(at + kLibraryVersion.size());
        return std::string(rest.substr(0, rest.find_first_not_of("0123456789.")));
    }
    return "";
}

std::optional<model::Finding> driver_mismatch_finding(const DoctorInput& input) {
    const auto& attempts = input.discovery.attempts;
    if (std::none_of(attempts.begin(), attempts.end(), [](const model::TierAttempt& attempt) {
            return says_mismatch(attempt.reason);
        })) {
        return std::nullopt;
    }
    const std::string library = mismatched_library_version(input.discovery);
    const auto& module = input.host.nvidia_module;
    return model::Finding{
        .code = model::FindingCode::driver_version_mismatch,
        .severity = model::Severity::error,
        .message = fmt::format(
            "The NVIDIA user-space driver{} and the kernel module running{} are different "
            "versions: NVML, nvidia-smi and CUDA refuse to start (Driver/library version "
            "mismatch), so nothing can be asked of the GPUs and P2P stays off. This follows a "
            "driver upgrade without a reboot, or driver libraries a container brought itself",
            library.empty() ? "" : fmt::format(" (NVML library {})", library),
            module ? fmt::format(" ({}, /proc/driver/nvidia/version)", module->version) : ""),
        .remedy =
            "Reboot to load the installed module. Without a reboot: stop every process using "
            "the GPUs ('lsof /dev/nvidia*' lists them; nvidia-persistenced, DCGM and a display "
            "manager hold them too), then 'rmmod nvidia_uvm nvidia_drm nvidia_modeset "
            "nvidia_peermem nvidia' and 'modprobe nvidia'. In a container, use the host's "
            "driver libraries (the NVIDIA Container Toolkit mounts them), not ones in the "
            "image."};
}

}  // namespace peergate::policy::doctor
