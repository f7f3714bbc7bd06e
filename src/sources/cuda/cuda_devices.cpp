// SPDX-License-Identifier: Apache-2.0
#include "sources/cuda/cuda_devices.hpp"

#include <array>

namespace peergate::sources::cuda {

util::Expected<std::vector<engine::DeviceIdentity>> enumerate_devices(const CudaApi& api) {
    int count = 0;
    PEERGATE_TRY(check(api, api.cuDeviceGetCount(&count), "cuDeviceGetCount"));
    std::vector<engine::DeviceIdentity> devices;
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        CUdevice device = 0;
        PEERGATE_TRY(check(api, api.cuDeviceGet(&device, ordinal), "cuDeviceGet"));
        std::array<char, 256> name{};
        std::array<char, 64> bus_id{};
        PEERGATE_TRY(check(api,
                           api.cuDeviceGetName(name.data(), static_cast<int>(name.size()), device),
                           "cuDeviceGetName"));
        PEERGATE_TRY(
            check(api,
                  api.cuDeviceGetPCIBusId(bus_id.data(), static_cast<int>(bus_id.size()), device),
                  "cuDeviceGetPCIBusId"));
        name.back() = '\0';
        bus_id.back() = '\0';
        engine::DeviceIdentity identity{
            .ordinal = ordinal, .name = name.data(), .pci = std::nullopt};
        if (auto pci = model::PciAddress::parse(bus_id.data())) {
            identity.pci = *pci;
        }
        devices.push_back(std::move(identity));
    }
    return devices;
}

bool can_access_peer(const CudaApi& api, int ordinal, int peer_ordinal) {
    CUdevice device = 0;
    CUdevice peer = 0;
    int can = 0;
    return api.cuDeviceGet(&device, ordinal) == CUDA_SUCCESS &&
           api.cuDeviceGet(&peer, peer_ordinal) == CUDA_SUCCESS &&
           api.cuDeviceCanAccessPeer(&can, device, peer) == CUDA_SUCCESS && can == 1;
}

std::optional<bool> dma_buf_supported(const CudaApi& api, int ordinal) {
    CUdevice device = 0;
    int value = 0;
    if (api.cuDeviceGet(&device, ordinal) != CUDA_SUCCESS ||
        api.cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, device) !=
            CUDA_SUCCESS) {
        return std::nullopt;
    }
    return value != 0;
}

}  // namespace peergate::sources::cuda
