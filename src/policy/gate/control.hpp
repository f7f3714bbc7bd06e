// SPDX-License-Identifier: Apache-2.0
// The control plane of docs/gate-rules.md §2 and the GGML_CUDA_P2P value rules of §1.
#pragma once

#include "util/env_map.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace peergate::policy::gate {

// One switch: on only for the exact string "1" in PEERGATE_<X> or its Unsloth alias.
struct ControlSwitch {
    bool on = false;
    std::string variable;  // the variable that turned it on, for the texts
};

struct ControlPlane {
    ControlSwitch disable_tuning;  // PEERGATE_DISABLE_TUNING / UNSLOTH_DISABLE_DC_TUNING
    ControlSwitch disable_p2p;     // PEERGATE_DISABLE_P2P / UNSLOTH_DISABLE_DC_P2P
    ControlSwitch force_p2p;       // PEERGATE_FORCE_P2P / UNSLOTH_FORCE_DC_P2P
    ControlSwitch crosscheck;      // PEERGATE_TOPO_CROSSCHECK / UNSLOTH_P2P_TOPO_CROSSCHECK
};

ControlPlane read_control_plane(const util::EnvMap& env);

// llama.cpp tests GGML_CUDA_P2P for presence, so a value that reads as off (after
// trimming and lower-casing: "", "0", "false", "off", "no") would turn peer access ON.
bool is_off_value(std::string_view value);

// The inherited GGML_CUDA_P2P, classified.
struct InheritedP2p {
    std::optional<std::string> value;  // nullopt: not set

    bool off() const { return value && is_off_value(*value); }

    bool truthy() const { return value && !is_off_value(*value); }
};

InheritedP2p read_inherited_p2p(const util::EnvMap& env);

inline constexpr std::string_view kGgmlCudaP2p = "GGML_CUDA_P2P";
inline constexpr std::string_view kForceCublas32f = "GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F";
inline constexpr std::string_view kLaunchQueues = "CUDA_SCALE_LAUNCH_QUEUES";
inline constexpr std::string_view kDeviceOrder = "CUDA_DEVICE_ORDER";
inline constexpr std::string_view kVisibleDevices = "CUDA_VISIBLE_DEVICES";

}  // namespace peergate::policy::gate
