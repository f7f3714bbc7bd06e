// SPDX-License-Identifier: Apache-2.0
// Signatures checked against /usr/local/cuda-13.0/include/cuda.h: cuInit 5207,
// cuDriverGetVersion 5245, cuDeviceGet 5288, cuDeviceGetCount 5317, cuDeviceGetName 5349,
// cuDevicePrimaryCtxRetain 5896, cuDevicePrimaryCtxRelease(_v2) 5937 + define 149,
// cuCtxSetCurrent 6423, cuModuleLoadData 7365, cuModuleUnload 7476, cuModuleGetFunction
// 7532, cuMemAlloc(_v2) 8609, cuMemFree(_v2) 8708, cuMemAllocHost(_v2) 8793, cuMemFreeHost
// 8823, cuDeviceGetPCIBusId 9217, cuMemcpyHtoD(_v2) 9673, cuMemcpyDtoH(_v2) 9709,
// cuMemcpyPeerAsync 10530, cuMemcpyHtoDAsync(_v2) 10571, cuMemcpyDtoHAsync(_v2) 10612,
// cuMemsetD32(_v2) 11348, cuMemsetD32Async 11580, cuStreamCreate 14949, cuStreamQuery
// 15766, cuStreamSynchronize 15795, cuStreamDestroy(_v2) 15825, cuEventCreate 15946,
// cuEventRecord 15989, cuEventQuery 16071, cuEventSynchronize 16102, cuEventDestroy(_v2)
// 16131, cuEventElapsedTime(_v2) 16179 + define 172, cuLaunchKernel 17537,
// cuDeviceCanAccessPeer 23842, cuCtxEnablePeerAccess 23895, cuGetErrorString 5149,
// cuGetErrorName 5170. cuDeviceGetAttribute(int*, CUdevice_attribute, CUdevice): every driver
// since CUDA 2.0 exports it unversioned.
#include "sources/cuda/cuda_api.hpp"

#include "util/strings.hpp"
#include "util/symbol_binder.hpp"

#include <fmt/format.h>

#include <vector>

namespace peergate::sources::cuda {

namespace {

using Binder = util::SymbolBinder;

void bind_devices_and_memory(Binder& b, CudaApi& api) {
    b.required(api.cuInit, "cuInit");
    b.required(api.cuDriverGetVersion, "cuDriverGetVersion");
    b.required(api.cuDeviceGetCount, "cuDeviceGetCount");
    b.required(api.cuDeviceGet, "cuDeviceGet");
    b.required(api.cuDeviceGetName, "cuDeviceGetName");
    b.required(api.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId");
    b.required(api.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer");
    b.required(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    b.required(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    b.required(api.cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease_v2");
    b.required(api.cuCtxSetCurrent, "cuCtxSetCurrent");
    b.required(api.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess");
    b.required(api.cuMemAlloc_v2, "cuMemAlloc_v2");
    b.required(api.cuMemFree_v2, "cuMemFree_v2");
    b.required(api.cuMemAllocHost_v2, "cuMemAllocHost_v2");
    b.required(api.cuMemFreeHost, "cuMemFreeHost");
    b.required(api.cuMemcpyPeerAsync, "cuMemcpyPeerAsync");
    b.required(api.cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2");
    b.required(api.cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2");
    b.required(api.cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2");
    b.required(api.cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2");
    b.required(api.cuMemsetD32Async, "cuMemsetD32Async");
    b.required(api.cuMemsetD32_v2, "cuMemsetD32_v2");
}

void bind_streams_and_kernels(Binder& b, CudaApi& api) {
    b.required(api.cuStreamCreate, "cuStreamCreate");
    b.required(api.cuStreamDestroy_v2, "cuStreamDestroy_v2");
    b.required(api.cuStreamSynchronize, "cuStreamSynchronize");
    b.required(api.cuStreamQuery, "cuStreamQuery");
    b.required(api.cuEventCreate, "cuEventCreate");
    b.required(api.cuEventRecord, "cuEventRecord");
    b.required(api.cuEventSynchronize, "cuEventSynchronize");
    b.required(api.cuEventQuery, "cuEventQuery");
    b.required(api.cuEventDestroy_v2, "cuEventDestroy_v2");
    // CUDA 12.8 added cuEventElapsedTime_v2 (cuda.h maps the plain name to it); 535-series
    // drivers export only the original, which has the same signature.
    b.optional(api.cuEventElapsedTime, "cuEventElapsedTime_v2");
    if (api.cuEventElapsedTime == nullptr) {
        b.required(api.cuEventElapsedTime, "cuEventElapsedTime");
    }
    b.optional(api.cuModuleLoadData, "cuModuleLoadData");
    b.optional(api.cuModuleUnload, "cuModuleUnload");
    b.optional(api.cuModuleGetFunction, "cuModuleGetFunction");
    b.optional(api.cuLaunchKernel, "cuLaunchKernel");
    b.optional(api.cuGetErrorName, "cuGetErrorName");
    b.optional(api.cuGetErrorString, "cuGetErrorString");
}

}  // namespace

util::Expected<CudaApi> load_cuda_api(const util::DynamicLibrary& library) {
    CudaApi api;
    Binder binder(library);
    bind_devices_and_memory(binder, api);
    bind_streams_and_kernels(binder, api);
    if (!binder.missing().empty()) {
        return util::unexpected(util::ErrorCode::unavailable,
                                fmt::format("{} lacks required CUDA driver entry points: {}",
                                            library.path(),
                                            util::join(binder.missing(), ", ")));
    }
    return api;
}

std::string error_name(const CudaApi& api, CUresult status) {
    const char* name = nullptr;
    if (api.cuGetErrorName != nullptr && api.cuGetErrorName(status, &name) == CUDA_SUCCESS &&
        name != nullptr) {
        return name;
    }
    return fmt::format("CUresult {}", status);
}

util::Expected<void> check(const CudaApi& api, CUresult status, std::string_view call) {
    if (status == CUDA_SUCCESS) {
        return {};
    }
    const auto code =
        status == CUDA_ERROR_OUT_OF_MEMORY ? util::ErrorCode::unavailable : util::ErrorCode::io;
    return util::unexpected(util::Error{
        .code = code,
        .message = fmt::format("{} failed: {} {}", call, status, error_name(api, status)),
        .vendor_status = status});
}

util::Expected<std::shared_ptr<CudaDriver>> load_cuda_driver(const std::string& path,
                                                             const std::string& simulated_machine) {
    auto library = util::DynamicLibrary::open(path);
    if (!library) {
        return util::unexpected(util::ErrorCode::unavailable,
                                "no CUDA driver: " + library.error().message);
    }
    auto api = load_cuda_api(*library);
    if (!api) {
        return util::unexpected(api.error());
    }
    // "" too: a simulated driver opened for no named machine reads PEERGATE_SIM_MACHINE again,
    // whatever an earlier opener in this process named.
    if (auto* use = library->function<void(const char*)>("peergate_sim_cuda_use_machine")) {
        use(simulated_machine.c_str());
    }
    return std::make_shared<CudaDriver>(
        CudaDriver{.library = std::move(*library), .api = *api, .driver_version = 0});
}

util::Expected<void> initialise_cuda_driver(CudaDriver& driver) {
    PEERGATE_TRY(check(driver.api, driver.api.cuInit(0), "cuInit"));
    return check(
        driver.api, driver.api.cuDriverGetVersion(&driver.driver_version), "cuDriverGetVersion");
}

util::Expected<std::shared_ptr<CudaDriver>> open_cuda_driver(const std::string& path,
                                                             const std::string& simulated_machine) {
    auto driver = load_cuda_driver(path, simulated_machine);
    if (!driver) {
        return util::unexpected(driver.error());
    }
    if (auto init = initialise_cuda_driver(**driver); !init) {
        auto error = init.error();  // keeps the CUresult: 802 names the fabric manager
        error.code = util::ErrorCode::unavailable;
        error.message = "the CUDA driver did not initialise: " + error.message;
        return util::unexpected(std::move(error));
    }
    return driver;
}

}  // namespace peergate::sources::cuda
