// SPDX-License-Identifier: Apache-2.0
// CUDA resources as small move-only RAII handles. Destructors are noexcept and never fail
// loudly: a failed release is ignored (there is nothing useful to do with it). leak()
// gives a handle up without releasing it, for a driver that stopped answering.
#pragma once

#include "sources/cuda/cuda_api.hpp"

#include <cstddef>
#include <span>
#include <utility>

namespace peergate::sources::cuda {

// A value of type T released with `Release(api, value)` unless moved from or leaked.
template <typename T, CUresult (*Release)(const CudaApi&, T)>
class Owned {
public:
    Owned() = default;

    Owned(const CudaApi& api, T value) : api_(&api), value_(value), owned_(true) {}

    Owned(Owned&& other) noexcept { *this = std::move(other); }

    Owned& operator=(Owned&& other) noexcept {
        if (this != &other) {
            reset();
            api_ = other.api_;
            value_ = other.value_;
            owned_ = std::exchange(other.owned_, false);
        }
        return *this;
    }

    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;

    ~Owned() { reset(); }

    T get() const { return value_; }

    void leak() noexcept { owned_ = false; }

    void reset() noexcept {
        if (owned_) {
            static_cast<void>(Release(*api_, value_));
            owned_ = false;
        }
    }

private:
    const CudaApi* api_ = nullptr;
    T value_{};
    bool owned_ = false;
};

namespace release {
inline CUresult primary_context(const CudaApi& api, CUdevice device) {
    return api.cuDevicePrimaryCtxRelease_v2(device);
}

inline CUresult device_memory(const CudaApi& api, CUdeviceptr ptr) {
    return api.cuMemFree_v2(ptr);
}

inline CUresult host_memory(const CudaApi& api, void* ptr) {
    return api.cuMemFreeHost(ptr);
}

inline CUresult stream(const CudaApi& api, CUstream s) {
    return api.cuStreamDestroy_v2(s);
}

inline CUresult event(const CudaApi& api, CUevent e) {
    return api.cuEventDestroy_v2(e);
}

inline CUresult module(const CudaApi& api, CUmodule m) {
    return api.cuModuleUnload(m);
}
}  // namespace release

// The device's primary context, retained (the one the runtime and llama.cpp use).
class PrimaryContext {
public:
    static util::Expected<PrimaryContext> retain(const CudaApi& api, CUdevice device);

    CUcontext get() const { return context_; }

    CUdevice device() const { return retained_.get(); }

    util::Expected<void> make_current(const CudaApi& api) const;

    void leak() noexcept { retained_.leak(); }

private:
    Owned<CUdevice, release::primary_context> retained_;
    CUcontext context_ = nullptr;
};

// Device memory of the current context.
class DeviceBuffer {
public:
    static util::Expected<DeviceBuffer> allocate(const CudaApi& api, std::size_t bytes);

    CUdeviceptr get() const { return memory_.get(); }

    std::size_t size() const { return bytes_; }

    void leak() noexcept { memory_.leak(); }

private:
    Owned<CUdeviceptr, release::device_memory> memory_;
    std::size_t bytes_ = 0;
};

// Page-locked host memory: what staged and host<->device copies go through.
class PinnedHostBuffer {
public:
    static util::Expected<PinnedHostBuffer> allocate(const CudaApi& api, std::size_t bytes);

    void* data() const { return memory_.get(); }

    std::size_t size() const { return bytes_; }

    void leak() noexcept { memory_.leak(); }

private:
    Owned<void*, release::host_memory> memory_;
    std::size_t bytes_ = 0;
};

using Stream = Owned<CUstream, release::stream>;
using Event = Owned<CUevent, release::event>;
using Module = Owned<CUmodule, release::module>;

// A stream of the current context.
util::Expected<Stream> create_stream(const CudaApi& api, unsigned int flags);
// An event of the current context (timing on unless `flags` says otherwise).
util::Expected<Event> create_event(const CudaApi& api, unsigned int flags);
// A module of the current context from PTX or cubin bytes.
util::Expected<Module> load_module(const CudaApi& api, const void* image);

// One kernel of a module: where its handle goes, and its .entry name.
struct ModuleEntry {
    CUfunction* function = nullptr;
    const char* name = nullptr;
};

// load_module, then every entry's function looked up; the first missing one is the error.
util::Expected<Module> load_module_functions(const CudaApi& api,
                                             const void* image,
                                             std::span<const ModuleEntry> entries);

// Lets `from` reach `to`'s memory directly (current context: from). Peer access lasts as
// long as the contexts, so there is nothing to undo; ALREADY_ENABLED (704) is success.
util::Expected<void> enable_peer_access(const CudaApi& api,
                                        const PrimaryContext& from,
                                        const PrimaryContext& to);

}  // namespace peergate::sources::cuda
