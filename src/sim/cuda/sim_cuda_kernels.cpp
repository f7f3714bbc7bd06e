// SPDX-License-Identifier: Apache-2.0
// Simulated CUDA driver: asynchronous host copies and memset, modules and kernel launches.
// The probe's PTX kernels are recognised by their .entry names and run as C++ equivalents.
#include "engine/pattern.hpp"
#include "sim/cuda/sim_cuda_peer_kernels.hpp"
#include "sim/cuda/sim_cuda_state.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

using namespace peergate::sim::cuda;  // NOLINT

namespace {

constexpr std::string_view kFill = "peergate_fill_pattern";
constexpr std::string_view kVerify = "peergate_verify_pattern";

CUresult faulted(const char* call, int device, std::uint64_t bytes = 0) {
    const State& s = state();
    if (!s.initialised) {
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    if (auto fault = cuda_fault(s, call, device, bytes)) {
        return fail_or_hang(*fault);
    }
    return CUDA_SUCCESS;
}

int device_of(CUstream stream) {
    const CUctx_st* context = current_context();
    return stream != nullptr ? stream->device : context != nullptr ? context->device : -1;
}

void run_fill(State& s, CUdeviceptr data, std::uint64_t count, std::uint32_t seed) {
    if (const DeviceRange range = device_range(s, data, count * 4U)) {
        fill_pattern(range, seed);
    }
}

void run_verify(
    State& s, CUdeviceptr data, std::uint64_t count, std::uint32_t seed, CUdeviceptr result) {
    const DeviceRange range = device_range(s, data, count * 4U);
    const DeviceRange out = device_range(s, result, 12);
    if (!range || !out) {
        return;
    }
    const auto found = verify_pattern(range, seed);
    std::uint8_t* bytes = range_bytes(out);
    std::uint32_t r[3];
    std::memcpy(r, bytes, sizeof(r));
    // The kernel's two atomicAdds and its atomicMin.
    r[0] += static_cast<std::uint32_t>(found.dropped);
    r[1] += static_cast<std::uint32_t>(found.wrong);
    if (found.first_bad_element) {
        r[2] = std::min(r[2], static_cast<std::uint32_t>(*found.first_bad_element));
    }
    std::memcpy(bytes, r, sizeof(r));
}

}  // namespace

PEERGATE_SIM_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dst,
                                                  CUdeviceptr src,
                                                  std::size_t bytes,
                                                  CUstream stream) {
    if (const CUresult r = faulted("cuMemcpyDtoHAsync_v2", device_of(stream), bytes);
        r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const DeviceRange checked = device_range(s, src, bytes);
    if (dst == nullptr || !checked) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const int device = checked.allocation->device;
    enqueue(stream, copy_time_us(s, device, -1, bytes, true), [&s, dst, src, bytes] {
        if (const DeviceRange from = device_range(s, src, bytes)) {
            copy_to_host(dst, from);
        }
    });
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst,
                                                  const void* src,
                                                  std::size_t bytes,
                                                  CUstream stream) {
    if (const CUresult r = faulted("cuMemcpyHtoDAsync_v2", device_of(stream), bytes);
        r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const DeviceRange checked = device_range(s, dst, bytes);
    if (src == nullptr || !checked) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const int device = checked.allocation->device;
    enqueue(stream, copy_time_us(s, -1, device, bytes, true), [&s, dst, src, bytes] {
        if (const DeviceRange to = device_range(s, dst, bytes)) {
            copy_from_host(to, src);
        }
    });
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst,
                                              unsigned int value,
                                              std::size_t count,
                                              CUstream stream) {
    if (const CUresult r = faulted("cuMemsetD32Async", device_of(stream)); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const DeviceRange checked = device_range(s, dst, count * 4U);
    if (!checked || dst % 4U != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const int device = checked.allocation->device;
    enqueue(stream, copy_time_us(s, device, device, count * 4U, true), [&s, dst, value, count] {
        if (const DeviceRange to = device_range(s, dst, count * 4U)) {
            set_words(to, value);
        }
    });
    return CUDA_SUCCESS;
}

// Accepts PTX text that declares the probe's entries; anything else is not valid PTX here.
PEERGATE_SIM_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    const CUctx_st* context = current_context();
    if (const CUresult r = faulted("cuModuleLoadData", context ? context->device : -1);
        r != CUDA_SUCCESS) {
        return r;
    }
    if (context == nullptr) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (module == nullptr || image == nullptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const std::string_view text(static_cast<const char*>(image));
    if (text.find(".version") == std::string_view::npos ||
        text.find(".target") == std::string_view::npos) {
        return CUDA_ERROR_INVALID_PTX;
    }
    auto* loaded = new CUmod_st{};
    for (const auto name : {kFill, kVerify, kCopyWords, kHandshakePost, kHandshakeWait}) {
        if (text.find(".entry " + std::string(name) + "(") != std::string_view::npos) {
            auto fn = std::make_unique<CUfunc_st>();
            fn->name = std::string(name);
            fn->device = context->device;
            loaded->functions.push_back(std::move(fn));
        }
    }
    if (loaded->functions.empty()) {
        delete loaded;  // NOLINT
        return CUDA_ERROR_INVALID_PTX;
    }
    *module = loaded;
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuModuleUnload(CUmodule module) {
    if (module == nullptr) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    delete module;  // NOLINT
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuModuleGetFunction(CUfunction* fn,
                                                 CUmodule module,
                                                 const char* name) {
    if (fn == nullptr || module == nullptr || name == nullptr) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (const auto& f : module->functions) {
        if (f->name == name) {
            *fn = f.get();
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

PEERGATE_SIM_EXPORT CUresult cuLaunchKernel(CUfunction fn,
                                            unsigned int gx,
                                            unsigned int gy,
                                            unsigned int gz,
                                            unsigned int bx,
                                            unsigned int by,
                                            unsigned int bz,
                                            unsigned int shared,
                                            CUstream stream,
                                            void** params,
                                            void** extra) {
    if (const CUresult r = faulted("cuLaunchKernel", device_of(stream)); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const CUfunc_st* function = fn;
    if (function == nullptr || params == nullptr || extra != nullptr || gx * gy * gz == 0 ||
        bx * by * bz == 0 || bx * by * bz > 1024 || shared != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (device_of(stream) != function->device) {
        return CUDA_ERROR_INVALID_HANDLE;  // a module belongs to the context it was loaded in
    }
    if (is_peer_kernel(function->name)) {
        return launch_peer_kernel(s, *function, stream, gx * gy * gz, params);
    }
    CUdeviceptr data = 0;
    std::uint64_t count = 0;
    std::uint32_t seed = 0;
    std::memcpy(&data, params[0], sizeof(data));
    std::memcpy(&count, params[1], sizeof(count));
    std::memcpy(&seed, params[2], sizeof(seed));
    if (!device_range(s, data, count * 4U)) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    if (data % 4U != 0) {
        return CUDA_ERROR_MISALIGNED_ADDRESS;  // the kernels load and store 32-bit words
    }
    const double duration = copy_time_us(s, function->device, function->device, count * 8U, true);
    if (function->name == kFill) {
        enqueue(stream, duration, [&s, data, count, seed] { run_fill(s, data, count, seed); });
        return CUDA_SUCCESS;
    }
    CUdeviceptr result = 0;
    std::memcpy(&result, params[3], sizeof(result));
    if (!device_range(s, result, 12)) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    if (result % 4U != 0) {
        return CUDA_ERROR_MISALIGNED_ADDRESS;
    }
    enqueue(stream, duration, [&s, data, count, seed, result] {
        run_verify(s, data, count, seed, result);
    });
    return CUDA_SUCCESS;
}
