// SPDX-License-Identifier: Apache-2.0
// The CUDA devices the driver shows: ordinal, name and PCI bus id (cuDeviceGetPCIBusId
// prints 0000:1B:00.0, a 4-digit domain: parsed, never compared as text).
#pragma once

#include "engine/device_map.hpp"
#include "sources/cuda/cuda_api.hpp"

#include <optional>
#include <vector>

namespace peergate::sources::cuda {

util::Expected<std::vector<engine::DeviceIdentity>> enumerate_devices(const CudaApi& api);

// cuDeviceCanAccessPeer for two ordinals; false when the call fails.
bool can_access_peer(const CudaApi& api, int ordinal, int peer_ordinal);

// CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED for an ordinal: whether the driver can export its
// memory as DMA-BUF (the open kernel module, Turing or later); nullopt when the call fails
// (a driver before CUDA 11.7 does not know the attribute).
std::optional<bool> dma_buf_supported(const CudaApi& api, int ordinal);

}  // namespace peergate::sources::cuda
