// SPDX-License-Identifier: Apache-2.0
// Simulated CUDA driver: devices, contexts, peer access, memory and synchronous copies.
#include "sim/cuda/sim_cuda_state.hpp"

#include <fmt/format.h>

#include <cstring>

using namespace peergate::sim::cuda;  // NOLINT

namespace {

// A "cuda" fault for this call applies before anything else happens.
CUresult faulted(const char* call, int device = -1, std::uint64_t bytes = 0) {
    const State& s = state();
    if (!s.initialised) {
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    if (auto fault = cuda_fault(s, call, device, bytes)) {
        return fail_or_hang(*fault);
    }
    return CUDA_SUCCESS;
}

int current_device() {
    const CUctx_st* context = current_context();
    return context == nullptr ? -1 : context->device;
}

bool valid_device(const State& s, CUdevice dev) {
    return dev >= 0 && static_cast<std::size_t>(dev) < s.machine.gpus.size();
}

bool peer_allowed(const State& s, int a, int b) {
    if (a == b) {
        return false;
    }
    const auto& table = s.machine.cuda_can_access_peer;
    const auto p = static_cast<std::size_t>(a);
    const auto q = static_cast<std::size_t>(b);
    return p < table.size() && q < table[p].size() ? table[p][q] != 0 : true;
}

}  // namespace

PEERGATE_SIM_EXPORT CUresult cuDeviceGetCount(int* count) {
    if (const CUresult r = faulted("cuDeviceGetCount"); r != CUDA_SUCCESS) {
        return r;
    }
    if (count == nullptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *count = static_cast<int>(state().machine.gpus.size());
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (const CUresult r = faulted("cuDeviceGet"); r != CUDA_SUCCESS) {
        return r;
    }
    if (device == nullptr || !valid_device(state(), ordinal)) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    *device = ordinal;
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
    if (const CUresult r = faulted("cuDeviceGetName", dev); r != CUDA_SUCCESS) {
        return r;
    }
    if (name == nullptr || len <= 0 || !valid_device(state(), dev)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const std::string& text = state().machine.gpus[static_cast<std::size_t>(dev)].name;
    const auto n = std::min(text.size(), static_cast<std::size_t>(len - 1));
    std::memcpy(name, text.data(), n);
    name[n] = '\0';
    return CUDA_SUCCESS;
}

// CUDA prints a 4-digit domain in upper case: 0000:1B:00.0.
PEERGATE_SIM_EXPORT CUresult cuDeviceGetPCIBusId(char* bus_id, int len, CUdevice dev) {
    if (const CUresult r = faulted("cuDeviceGetPCIBusId", dev); r != CUDA_SUCCESS) {
        return r;
    }
    if (bus_id == nullptr || len < 13 || !valid_device(state(), dev)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const auto& pci = state().machine.gpus[static_cast<std::size_t>(dev)].pci;
    const std::string text =
        fmt::format("{:04X}:{:02X}:{:02X}.{:X}", pci.domain, pci.bus, pci.device, pci.function);
    const auto n = std::min(text.size(), static_cast<std::size_t>(len - 1));
    std::memcpy(bus_id, text.data(), n);
    bus_id[n] = '\0';
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuDeviceCanAccessPeer(int* can, CUdevice dev, CUdevice peer) {
    if (const CUresult r = faulted("cuDeviceCanAccessPeer", dev); r != CUDA_SUCCESS) {
        return r;
    }
    const State& s = state();
    if (can == nullptr || !valid_device(s, dev) || !valid_device(s, peer)) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    *can = peer_allowed(s, dev, peer) ? 1 : 0;
    return CUDA_SUCCESS;
}

// Only the attribute peergate asks, as the driver would: the GPU's recorded answer, else the
// kernel module's flavour (only the open one exports DMA-BUF); any other attribute, or none
// recorded, is CUDA_ERROR_INVALID_VALUE, a driver that does not know it.
PEERGATE_SIM_EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice dev) {
    if (const CUresult r = faulted("cuDeviceGetAttribute", dev); r != CUDA_SUCCESS) {
        return r;
    }
    const State& s = state();
    if (value == nullptr || !valid_device(s, dev)) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    const auto& recorded = s.machine.gpus[static_cast<std::size_t>(dev)].cuda_dma_buf;
    const std::string& module = s.machine.host.kernel_module;
    if (attribute != CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED || (!recorded && module.empty())) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *value = recorded ? (*recorded ? 1 : 0) : (module == "open" ? 1 : 0);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice dev) {
    if (const CUresult r = faulted("cuDevicePrimaryCtxRetain", dev); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (context == nullptr || !valid_device(s, dev)) {
        return CUDA_ERROR_INVALID_DEVICE;
    }
    CUctx_st* ctx = s.contexts[static_cast<std::size_t>(dev)].get();
    ++ctx->retained;
    *context = ctx;
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (!valid_device(s, dev) || s.contexts[static_cast<std::size_t>(dev)]->retained <= 0) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    CUctx_st* ctx = s.contexts[static_cast<std::size_t>(dev)].get();
    if (--ctx->retained == 0) {
        ctx->peers.clear();  // peer access ends with the context
    }
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
    if (const CUresult r = faulted("cuCtxSetCurrent"); r != CUDA_SUCCESS) {
        return r;
    }
    current_context() = context;
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
    const int device = current_device();
    if (const CUresult r = faulted("cuCtxEnablePeerAccess", device); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (device < 0 || peer == nullptr || flags != 0) {
        return device < 0 ? CUDA_ERROR_INVALID_CONTEXT : CUDA_ERROR_INVALID_VALUE;
    }
    if (!peer_allowed(s, device, peer->device)) {
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    }
    auto& peers = s.contexts[static_cast<std::size_t>(device)]->peers;
    return peers.insert(peer->device).second ? CUDA_SUCCESS
                                             : CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
}

PEERGATE_SIM_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* ptr, std::size_t bytes) {
    const int device = current_device();
    if (const CUresult r = faulted("cuMemAlloc_v2", device, bytes); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (device < 0) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (ptr == nullptr || bytes == 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const auto d = static_cast<std::size_t>(device);
    if (s.allocated_bytes[d] + bytes > s.machine.gpus[d].memory_bytes) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    // No host memory yet: the allocation is a description of zeros until its bytes count.
    Allocation allocation{.device = device, .bytes = bytes};
    // Opaque addresses with a gap between allocations: an overrun is caught, not absorbed.
    *ptr = s.next_address;
    s.next_address += ((bytes + 0xFFFFFU) & ~0xFFFFFULL) + 0x100000U;
    s.allocated_bytes[d] += bytes;
    s.allocations.emplace(*ptr, std::move(allocation));
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.allocations.find(ptr);
    if (it == s.allocations.end()) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    s.allocated_bytes[static_cast<std::size_t>(it->second.device)] -= it->second.bytes;
    s.allocations.erase(it);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemAllocHost_v2(void** ptr, std::size_t bytes) {
    if (const CUresult r = faulted("cuMemAllocHost_v2", -1, bytes); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (ptr == nullptr || bytes == 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *ptr = std::calloc(bytes, 1);  // NOLINT: the driver hands out C memory
    if (*ptr == nullptr) {
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    s.pinned.insert(*ptr);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemFreeHost(void* ptr) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (s.pinned.erase(ptr) == 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    std::free(ptr);  // NOLINT
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t bytes) {
    if (const CUresult r = faulted("cuMemcpyDtoH_v2", current_device(), bytes); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const DeviceRange from = device_range(s, src, bytes);
    if (!from || dst == nullptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    copy_to_host(dst, from);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, std::size_t bytes) {
    if (const CUresult r = faulted("cuMemcpyHtoD_v2", current_device(), bytes); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const DeviceRange to = device_range(s, dst, bytes);
    if (!to || src == nullptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    copy_from_host(to, src);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst,
                                            unsigned int value,
                                            std::size_t count) {
    if (const CUresult r = faulted("cuMemsetD32_v2", current_device()); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const DeviceRange to = device_range(s, dst, count * 4U);
    if (!to || dst % 4U != 0) {
        return CUDA_ERROR_INVALID_VALUE;  // the real driver also wants 4-byte alignment
    }
    set_words(to, value);
    return CUDA_SUCCESS;
}
