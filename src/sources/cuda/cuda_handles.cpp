// SPDX-License-Identifier: Apache-2.0
#include "sources/cuda/cuda_handles.hpp"

namespace peergate::sources::cuda {

util::Expected<PrimaryContext> PrimaryContext::retain(const CudaApi& api, CUdevice device) {
    PrimaryContext context;
    PEERGATE_TRY(check(
        api, api.cuDevicePrimaryCtxRetain(&context.context_, device), "cuDevicePrimaryCtxRetain"));
    context.retained_ = Owned<CUdevice, release::primary_context>(api, device);
    return context;
}

util::Expected<void> PrimaryContext::make_current(const CudaApi& api) const {
    return check(api, api.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

util::Expected<DeviceBuffer> DeviceBuffer::allocate(const CudaApi& api, std::size_t bytes) {
    CUdeviceptr ptr = 0;
    PEERGATE_TRY(check(api, api.cuMemAlloc_v2(&ptr, bytes), "cuMemAlloc_v2"));
    DeviceBuffer buffer;
    buffer.memory_ = Owned<CUdeviceptr, release::device_memory>(api, ptr);
    buffer.bytes_ = bytes;
    return buffer;
}

util::Expected<PinnedHostBuffer> PinnedHostBuffer::allocate(const CudaApi& api, std::size_t bytes) {
    void* ptr = nullptr;
    PEERGATE_TRY(check(api, api.cuMemAllocHost_v2(&ptr, bytes), "cuMemAllocHost_v2"));
    PinnedHostBuffer buffer;
    buffer.memory_ = Owned<void*, release::host_memory>(api, ptr);
    buffer.bytes_ = bytes;
    return buffer;
}

util::Expected<Stream> create_stream(const CudaApi& api, unsigned int flags) {
    CUstream stream = nullptr;
    PEERGATE_TRY(check(api, api.cuStreamCreate(&stream, flags), "cuStreamCreate"));
    return Stream(api, stream);
}

util::Expected<Event> create_event(const CudaApi& api, unsigned int flags) {
    CUevent event = nullptr;
    PEERGATE_TRY(check(api, api.cuEventCreate(&event, flags), "cuEventCreate"));
    return Event(api, event);
}

util::Expected<Module> load_module(const CudaApi& api, const void* image) {
    if (!api.has_kernels()) {
        return util::unexpected(util::ErrorCode::unavailable,
                                "the driver does not export cuModuleLoadData/cuLaunchKernel");
    }
    CUmodule module = nullptr;
    PEERGATE_TRY(check(api, api.cuModuleLoadData(&module, image), "cuModuleLoadData"));
    return Module(api, module);
}

util::Expected<Module> load_module_functions(const CudaApi& api,
                                             const void* image,
                                             std::span<const ModuleEntry> entries) {
    auto module = load_module(api, image);
    if (!module) {
        return util::unexpected(module.error());
    }
    for (const auto& entry : entries) {
        PEERGATE_TRY(check(api,
                           api.cuModuleGetFunction(entry.function, module->get(), entry.name),
                           "cuModuleGetFunction"));
    }
    return module;
}

util::Expected<void> enable_peer_access(const CudaApi& api,
                                        const PrimaryContext& from,
                                        const PrimaryContext& to) {
    PEERGATE_TRY(from.make_current(api));
    const CUresult status = api.cuCtxEnablePeerAccess(to.get(), 0);
    if (status == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
        return {};
    }
    return check(api, status, "cuCtxEnablePeerAccess");
}

}  // namespace peergate::sources::cuda
