// SPDX-License-Identifier: Apache-2.0
#include "engine/device_map.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::engine {

namespace {

util::Expected<DeviceMap> map_by_pci_order(const std::vector<DeviceIdentity>& cuda) {
    std::vector<DeviceIdentity> sorted = cuda;
    for (const auto& device : sorted) {
        if (!device.pci) {
            return util::unexpected(
                util::ErrorCode::unavailable,
                fmt::format("CUDA device {} has no readable PCI bus id", device.ordinal));
        }
    }
    std::sort(
        sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return *a.pci < *b.pci; });
    DeviceMap map{.devices = {}, .source = "pci-order"};
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        map.devices.push_back(
            {static_cast<int>(i), sorted[i].ordinal, sorted[i].name, sorted[i].pci});
    }
    return map;
}

}  // namespace

util::Expected<DeviceMap> map_devices(const std::vector<DeviceIdentity>& cuda,
                                      const std::vector<model::Gpu>& known) {
    if (known.empty()) {
        return map_by_pci_order(cuda);
    }
    DeviceMap map{.devices = {}, .source = "topology"};
    for (const auto& device : cuda) {
        auto gpu = std::find_if(known.begin(), known.end(), [&](const model::Gpu& g) {
            return g.pci && device.pci && *g.pci == *device.pci;
        });
        if (gpu == known.end()) {
            return util::unexpected(
                util::ErrorCode::unavailable,
                fmt::format("CUDA device {} ({}) is not among the GPUs the topology lists",
                            device.ordinal,
                            device.pci ? device.pci->to_nvml() : "no bus id"));
        }
        map.devices.push_back({gpu->index, device.ordinal, device.name, device.pci});
    }
    std::sort(map.devices.begin(), map.devices.end(), [](const auto& a, const auto& b) {
        return a.index < b.index;
    });
    return map;
}

util::Expected<std::vector<MappedDevice>> select_devices(const DeviceMap& map,
                                                         const std::vector<int>& selection) {
    if (selection.empty()) {
        return map.devices;
    }
    std::vector<MappedDevice> chosen;
    for (const int index : selection) {
        auto it = std::find_if(map.devices.begin(), map.devices.end(), [index](const auto& d) {
            return d.index == index;
        });
        if (it == map.devices.end()) {
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format("--gpus: no GPU {} visible to the CUDA driver", index));
        }
        chosen.push_back(*it);
    }
    return chosen;
}

}  // namespace peergate::engine
