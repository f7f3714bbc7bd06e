// SPDX-License-Identifier: Apache-2.0
// Joins CUDA devices to nvidia-smi indices by PCI bus id, so every report speaks
// nvidia-smi indices (CUDA ordinals follow CUDA_DEVICE_ORDER, FASTEST_FIRST by default).
#pragma once

#include "model/gpu.hpp"
#include "model/pci_address.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::engine {

struct DeviceIdentity {
    int ordinal = 0;  // CUDA ordinal
    std::string name;
    std::optional<model::PciAddress> pci;
};

struct MappedDevice {
    int index = 0;    // nvidia-smi index
    int ordinal = 0;  // CUDA ordinal
    std::string name;
    std::optional<model::PciAddress> pci;

    friend bool operator==(const MappedDevice&, const MappedDevice&) = default;
};

struct DeviceMap {
    std::vector<MappedDevice> devices;  // by nvidia-smi index
    std::string source;                 // "topology" or "pci-order"
};

// With `known` GPUs (from a topology tier) each CUDA device takes the index of the GPU
// with its bus id; a CUDA device missing there is an error (the two views disagree).
// Without them, indices are the CUDA devices in PCI bus order, which is how nvidia-smi
// numbers them.
util::Expected<DeviceMap> map_devices(const std::vector<DeviceIdentity>& cuda,
                                      const std::vector<model::Gpu>& known);

// The devices for a selection of nvidia-smi indices ("all" = every device), in the
// order given; an index that is not there is an error naming it.
util::Expected<std::vector<MappedDevice>> select_devices(const DeviceMap& map,
                                                         const std::vector<int>& selection);

}  // namespace peergate::engine
