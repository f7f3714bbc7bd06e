// SPDX-License-Identifier: Apache-2.0
// The CUDA driver API as a function table resolved from a dlopen'd libcuda (or its
// simulation). cuda.h silently maps plain names to versioned symbols (cuMemAlloc ->
// cuMemAlloc_v2, ...; CUDA 13.0 cuda.h lines 90-172), and the plain exports keep the
// legacy ABI, so every versioned name below is bound on purpose.
#pragma once

#include "sources/cuda/cuda_abi.hpp"
#include "util/dynamic_library.hpp"
#include "util/expected.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace peergate::sources::cuda {

// NOLINTBEGIN(readability-identifier-naming): members are named after the exported symbols.
// Signatures checked against cuda.h (CUDA 13.0): line numbers in cuda_api.cpp.
struct CudaApi {
    CUresult (*cuInit)(unsigned int flags) = nullptr;
    CUresult (*cuDriverGetVersion)(int* version) = nullptr;
    CUresult (*cuDeviceGetCount)(int* count) = nullptr;
    CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
    CUresult (*cuDeviceGetName)(char* name, int len, CUdevice dev) = nullptr;
    CUresult (*cuDeviceGetPCIBusId)(char* bus_id, int len, CUdevice dev) = nullptr;
    CUresult (*cuDeviceCanAccessPeer)(int* can, CUdevice dev, CUdevice peer) = nullptr;
    // The attribute is the CUdevice_attribute enum, an int in the C ABI.
    CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice dev) = nullptr;
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* ctx, CUdevice dev) = nullptr;
    CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice dev) = nullptr;
    CUresult (*cuCtxSetCurrent)(CUcontext ctx) = nullptr;
    CUresult (*cuCtxEnablePeerAccess)(CUcontext peer, unsigned int flags) = nullptr;
    CUresult (*cuMemAlloc_v2)(CUdeviceptr* ptr, std::size_t bytes) = nullptr;
    CUresult (*cuMemFree_v2)(CUdeviceptr ptr) = nullptr;
    CUresult (*cuMemAllocHost_v2)(void** ptr, std::size_t bytes) = nullptr;
    CUresult (*cuMemFreeHost)(void* ptr) = nullptr;
    CUresult (*cuMemcpyPeerAsync)(CUdeviceptr dst,
                                  CUcontext dst_ctx,
                                  CUdeviceptr src,
                                  CUcontext src_ctx,
                                  std::size_t bytes,
                                  CUstream stream) = nullptr;
    CUresult (*cuMemcpyDtoHAsync_v2)(void* dst,
                                     CUdeviceptr src,
                                     std::size_t bytes,
                                     CUstream stream) = nullptr;
    CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr dst,
                                     const void* src,
                                     std::size_t bytes,
                                     CUstream stream) = nullptr;
    CUresult (*cuMemcpyDtoH_v2)(void* dst, CUdeviceptr src, std::size_t bytes) = nullptr;
    CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr dst, const void* src, std::size_t bytes) = nullptr;
    CUresult (*cuMemsetD32Async)(CUdeviceptr dst,
                                 unsigned int value,
                                 std::size_t count,
                                 CUstream stream) = nullptr;
    CUresult (*cuMemsetD32_v2)(CUdeviceptr dst, unsigned int value, std::size_t count) = nullptr;
    CUresult (*cuStreamCreate)(CUstream* stream, unsigned int flags) = nullptr;
    CUresult (*cuStreamDestroy_v2)(CUstream stream) = nullptr;
    CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
    CUresult (*cuStreamQuery)(CUstream stream) = nullptr;
    CUresult (*cuEventCreate)(CUevent* event, unsigned int flags) = nullptr;
    CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
    CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
    CUresult (*cuEventQuery)(CUevent event) = nullptr;
    // cuEventElapsedTime_v2 (CUDA 12.8+) when exported, else the original: same signature.
    CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end) = nullptr;
    CUresult (*cuEventDestroy_v2)(CUevent event) = nullptr;
    // Optional: without them device-side verification falls back to the host.
    CUresult (*cuModuleLoadData)(CUmodule* module, const void* image) = nullptr;
    CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
    CUresult (*cuModuleGetFunction)(CUfunction* fn, CUmodule module, const char* name) = nullptr;
    CUresult (*cuLaunchKernel)(CUfunction fn,
                               unsigned int grid_x,
                               unsigned int grid_y,
                               unsigned int grid_z,
                               unsigned int block_x,
                               unsigned int block_y,
                               unsigned int block_z,
                               unsigned int shared_bytes,
                               CUstream stream,
                               void** params,
                               void** extra) = nullptr;
    CUresult (*cuGetErrorName)(CUresult error, const char** text) = nullptr;
    CUresult (*cuGetErrorString)(CUresult error, const char** text) = nullptr;

    bool has_kernels() const {
        return cuModuleLoadData && cuModuleUnload && cuModuleGetFunction && cuLaunchKernel;
    }
};

// NOLINTEND(readability-identifier-naming)

// Resolves the table; the error lists every missing required symbol at once.
util::Expected<CudaApi> load_cuda_api(const util::DynamicLibrary& library);

// Turns a status into Expected: the message carries the call, the code and the
// driver's name for it ("cuMemAlloc_v2 failed: 2 CUDA_ERROR_OUT_OF_MEMORY").
util::Expected<void> check(const CudaApi& api, CUresult status, std::string_view call);

// "CUDA_ERROR_OUT_OF_MEMORY", or "CUresult <n>" when the driver has no name for it.
std::string error_name(const CudaApi& api, CUresult status);

// An open driver: the library, its table, cuInit(0) done. Shared by the handles so the
// library outlives every resource made from it.
struct CudaDriver {
    util::DynamicLibrary library;
    CudaApi api;
    int driver_version = 0;  // cuDriverGetVersion: 12080 is CUDA 12.8
};

// dlopens `path` and binds the table, without cuInit. Under a simulation (`simulated_machine`
// names its machine file; "" for a real host) the simulated driver is told the machine first,
// so that it answers without PEERGATE_SIM_MACHINE in this process's environment, which the C
// API's callers do not have and the API may not set; told "", it reads the variable. A driver
// that does not export peergate_sim_cuda_use_machine (a real one) is left alone. Errors are
// "unavailable".
util::Expected<std::shared_ptr<CudaDriver>> load_cuda_driver(const std::string& path,
                                                             const std::string& simulated_machine);

// cuInit(0), then the driver version. The error is check()'s: the call, its CUresult (also in
// vendor_status) and the driver's name for it ("cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY").
util::Expected<void> initialise_cuda_driver(CudaDriver& driver);

// load_cuda_driver, then initialise_cuda_driver. Errors are "unavailable"; one of
// initialise_cuda_driver reads "the CUDA driver did not initialise: cuInit failed: ..." and
// keeps its CUresult.
util::Expected<std::shared_ptr<CudaDriver>> open_cuda_driver(const std::string& path,
                                                             const std::string& simulated_machine);

}  // namespace peergate::sources::cuda
