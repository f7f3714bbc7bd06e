// SPDX-License-Identifier: Apache-2.0
// Which /dev/nvidiaN belongs to which GPU. The driver numbers its device files in its own
// order, which need not be NVML's PCI bus order, and says so in
// /proc/driver/nvidia/gpus/<bus id>/information ("Device Minor: N").
#pragma once

#include "model/gpu.hpp"
#include "sources/host/host_root.hpp"

#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace peergate::sources::host {

// The "Device Minor:" of one information file; nullopt when it has none or it is not a number.
std::optional<int> parse_device_minor(std::string_view information);

// Per GPU index, the minor its information file gives; GPUs whose file is missing or
// unreadable are left out.
std::map<int, int> read_device_minors(const HostRoot& root, const std::vector<model::Gpu>& gpus);

}  // namespace peergate::sources::host
