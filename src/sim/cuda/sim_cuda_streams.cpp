// SPDX-License-Identifier: Apache-2.0
// Simulated CUDA driver: streams, events, asynchronous copies with injected copy faults,
// and the probe's PTX kernels recognised by their .entry names and run as C++.
#include "engine/pattern.hpp"
#include "sim/cuda/sim_cuda_state.hpp"

#include <algorithm>
#include <cstring>

using namespace peergate::sim::cuda;  // NOLINT
using peergate::snapshot::MachineFault;

namespace {

// A call's "cuda" fault; `query` calls answer NOT_READY forever instead of blocking
// (a device that never finishes, seen from a polling caller).
CUresult faulted(const char* call, int device, std::uint64_t bytes = 0, bool query = false) {
    const State& s = state();
    if (!s.initialised) {
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    if (auto fault = cuda_fault(s, call, device, bytes)) {
        return query && fault->effect == "hang" ? CUDA_ERROR_NOT_READY : fail_or_hang(*fault);
    }
    return CUDA_SUCCESS;
}

int stream_device(CUstream stream) {
    const CUctx_st* context = current_context();
    return stream != nullptr ? stream->device : context != nullptr ? context->device : -1;
}

// The first "copy" fault that applies to this peer copy.
std::optional<peergate::snapshot::MachineFault> copy_fault(
    const State& s, int src, int dst, std::size_t bytes, int in_flight) {
    for (const auto& f : s.machine.faults) {
        if (f.layer == "copy" && (f.src < 0 || f.src == gpu_index(s, src)) &&
            (f.dst < 0 || f.dst == gpu_index(s, dst)) && bytes >= f.min_bytes &&
            in_flight >= f.min_inflight && s.direct_copies_run >= f.after_copies) {
            return f;
        }
    }
    return std::nullopt;
}

}  // namespace

PEERGATE_SIM_EXPORT CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
    const CUctx_st* context = current_context();
    if (const CUresult r = faulted("cuStreamCreate", context ? context->device : -1);
        r != CUDA_SUCCESS) {
        return r;
    }
    if (context == nullptr) {
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    if (stream == nullptr || flags > 1U) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    *stream = new CUstream_st{.device = context->device};
    s.streams.insert(*stream);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (stream == nullptr) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    drain(stream);
    s.streams.erase(stream);
    delete stream;  // NOLINT: the driver owns stream objects
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
    if (const CUresult r = faulted("cuStreamSynchronize", stream_device(stream));
        r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    drain(stream);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuStreamQuery(CUstream stream) {
    if (const CUresult r = faulted("cuStreamQuery", stream_device(stream), 0, true);
        r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    drain(stream);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuEventCreate(CUevent* event, unsigned int flags) {
    if (const CUresult r = faulted("cuEventCreate", -1); r != CUDA_SUCCESS) {
        return r;
    }
    if (event == nullptr || (flags & ~0x7U) != 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    *event = new CUevent_st{};
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
    if (event == nullptr) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    delete event;  // NOLINT
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
    if (const CUresult r = faulted("cuEventRecord", stream_device(stream)); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (event == nullptr) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    event->recorded = true;
    event->complete = false;
    event->stream = stream;
    event->time_us = stream != nullptr ? stream->clock_us : 0.0;
    event->late_base_us = stream != nullptr ? stream->late_us : 0.0;
    enqueue(stream, 0.0, [event, stream] {
        event->time_us += stream != nullptr ? stream->late_us - event->late_base_us : 0.0;
        event->complete = true;
    });
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuEventSynchronize(CUevent event) {
    if (const CUresult r = faulted("cuEventSynchronize", -1); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (event == nullptr) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    drain(event->stream);
    return CUDA_SUCCESS;
}

PEERGATE_SIM_EXPORT CUresult cuEventQuery(CUevent event) {
    if (const CUresult r = faulted("cuEventQuery", -1, 0, true); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (event == nullptr) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    drain(event->stream);
    return CUDA_SUCCESS;
}

namespace {

CUresult elapsed(float* ms, CUevent start, CUevent end) {
    if (ms == nullptr || start == nullptr || end == nullptr || !start->recorded || !end->recorded) {
        return CUDA_ERROR_INVALID_HANDLE;
    }
    if (!start->complete || !end->complete) {
        return CUDA_ERROR_NOT_READY;
    }
    *ms = static_cast<float>((end->time_us - start->time_us) / 1000.0);
    return CUDA_SUCCESS;
}

}  // namespace

PEERGATE_SIM_EXPORT CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
    std::lock_guard lock(state().mutex);
    return elapsed(ms, start, end);
}

PEERGATE_SIM_EXPORT CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
    std::lock_guard lock(state().mutex);
    return elapsed(ms, start, end);
}

PEERGATE_SIM_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst,
                                               CUcontext dst_ctx,
                                               CUdeviceptr src,
                                               CUcontext src_ctx,
                                               std::size_t bytes,
                                               CUstream stream) {
    const int src_device = src_ctx != nullptr ? src_ctx->device : -1;
    if (const CUresult r = faulted("cuMemcpyPeerAsync", src_device, bytes); r != CUDA_SUCCESS) {
        return r;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    const DeviceRange from_range = device_range(s, src, bytes);
    const DeviceRange to_range = device_range(s, dst, bytes);
    if (dst_ctx == nullptr || src_ctx == nullptr || !from_range || !to_range ||
        from_range.allocation->device != src_ctx->device ||
        to_range.allocation->device != dst_ctx->device) {
        return CUDA_ERROR_INVALID_VALUE;  // a pointer that is not of the context named with it
    }
    const int from_device = from_range.allocation->device;
    const int to_device = to_range.allocation->device;
    const bool direct = from_device == to_device || src_ctx->peers.contains(to_device) ||
                        dst_ctx->peers.contains(from_device);
    const int in_flight = ++s.copies_in_flight;
    auto peak = std::make_shared<int>(in_flight);
    for (auto& other : s.pending_peaks) {
        *other = std::max(*other, in_flight);
    }
    s.pending_peaks.push_back(peak);
    // Silent drops live on the direct path only: a staged copy goes through host memory.
    const bool faultable = direct && from_device != to_device;
    enqueue(stream,
            copy_time_us(s, from_device, to_device, bytes, direct),
            [&s, dst, src, bytes, peak, faultable, from_device, to_device] {
                --s.copies_in_flight;
                auto& peaks = s.pending_peaks;
                peaks.erase(std::find(peaks.begin(), peaks.end(), peak));
                const DeviceRange to = device_range(s, dst, bytes);
                const DeviceRange from = device_range(s, src, bytes);
                if (!to || !from) {
                    return;  // freed before the stream ran: the real driver would fault
                }
                const auto fault =
                    faultable ? copy_fault(s, from_device, to_device, bytes, *peak) : std::nullopt;
                s.direct_copies_run += faultable ? 1 : 0;
                if (!fault) {
                    copy_device(to, from);
                } else if (fault->effect != "drop" || fault->fraction < 1.0) {
                    const std::uint8_t* source = range_bytes(from);
                    faulty_copy(range_bytes(to), source, bytes, *fault);
                }  // else every element is dropped: the destination keeps what it held
            });
    return CUDA_SUCCESS;
}
