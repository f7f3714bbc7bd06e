// SPDX-License-Identifier: Apache-2.0
#include "sim/cuda/sim_cuda_peer_kernels.hpp"

#include <cstring>
#include <optional>

namespace peergate::sim::cuda {

namespace {

using snapshot::MachineFault;

template <typename T>
T param(void** params, std::size_t i) {
    T value{};
    std::memcpy(&value, params[i], sizeof(value));
    return value;
}

// The first fault of `layer` for a transfer of `bytes` from device src to dst.
std::optional<MachineFault> peer_fault(
    const State& s, const char* layer, int src, int dst, std::size_t bytes) {
    for (const auto& f : s.machine.faults) {
        if (f.layer == layer && (f.src < 0 || f.src == gpu_index(s, src)) &&
            (f.dst < 0 || f.dst == gpu_index(s, dst)) && bytes >= f.min_bytes) {
            return f;
        }
    }
    return std::nullopt;
}

// A kernel on `device` may touch another device's memory only through a peer mapping.
bool reachable(const State& s, int device, const DeviceRange& range) {
    const int owner = range.allocation->device;
    return owner == device ||
           s.contexts.at(static_cast<std::size_t>(device))->peers.contains(owner);
}

// Words from `from` to `to` by a kernel on `device`: stores into a peer may be dropped or
// corrupted (an "sm" drop|corrupt fault), loads from a peer may answer the local value (an
// "sm" mirror fault: the destination keeps what it held).
void move_words(State& s, int device, const DeviceRange& to, const DeviceRange& from) {
    const int src = from.allocation->device;
    const int dst = to.allocation->device;
    const auto fault = src == dst ? std::nullopt : peer_fault(s, "sm", src, dst, to.bytes);
    const bool remote_store = dst != device;
    const bool remote_load = src != device;
    if (fault && fault->effect == "mirror" && remote_load) {
        return;
    }
    if (!fault || fault->effect == "mirror" || !remote_store) {
        copy_device(to, from);
        return;
    }
    if (fault->effect == "drop" && fault->fraction >= 1.0) {
        return;
    }
    const std::uint8_t* source = range_bytes(from);
    faulty_copy(range_bytes(to), source, to.bytes, *fault);
}

void store_word(State& s, CUdeviceptr address, std::uint32_t value) {
    if (const DeviceRange word = device_range(s, address, 4)) {
        std::memcpy(range_bytes(word), &value, 4);
    }
}

std::uint32_t load_word(State& s, CUdeviceptr address) {
    std::uint32_t value = 0;
    if (const DeviceRange word = device_range(s, address, 4)) {
        std::memcpy(&value, range_bytes(word), 4);
    }
    return value;
}

struct Post {
    CUdeviceptr payload = 0;
    CUdeviceptr src = 0;
    std::uint64_t count = 0;
    CUdeviceptr flag = 0;
    std::uint32_t value = 0;
};

// The writer: payload, fence, flag; a "flag" fault loses the flag, or stores it first and
// leaves the payload to land after whoever was waiting for it has looked.
void run_post(State& s, CUstream stream, int device, const Post& p) {
    const DeviceRange to = device_range(s, p.payload, p.count * 4U);
    const DeviceRange from = device_range(s, p.src, p.count * 4U);
    if (!to || !from) {
        return;
    }
    s.flag_writers[p.flag] = {device, to.bytes};
    const auto fault = peer_fault(s, "flag", device, to.allocation->device, to.bytes);
    if (fault && fault->effect == "early" && stream != nullptr) {
        store_word(s, p.flag, p.value);
        stream->work.push_front([&s, device, p] {
            const DeviceRange late_to = device_range(s, p.payload, p.count * 4U);
            const DeviceRange late_from = device_range(s, p.src, p.count * 4U);
            if (late_to && late_from) {
                move_words(s, device, late_to, late_from);
            }
        });
        return;
    }
    move_words(s, device, to, from);
    if (!fault) {
        store_word(s, p.flag, p.value);
    }
}

struct Wait {
    CUdeviceptr flag = 0;
    CUdeviceptr payload = 0;
    std::uint64_t count = 0;
    std::uint32_t seed = 0;
    std::uint32_t value = 0;
    std::uint64_t budget_ns = 0;
};

// The resident waiter: the other streams run while the flag is not there (a spinning block
// holds one SM; the GPUs go on). When nothing is left to run, the budget has run out; with
// no budget it looks once.
void run_wait(State& s, CUstream stream, const Wait& w) {
    bool seen = load_word(s, w.flag) == w.value;
    while (!seen && w.budget_ns > 0 && run_elsewhere(s)) {
        seen = load_word(s, w.flag) == w.value;
    }
    std::uint32_t result[4] = {0, 0, 0xFFFFFFFFU, seen ? 1U : 0U};
    const DeviceRange payload = device_range(s, w.payload, w.count * 4U);
    if (seen && payload) {
        const auto found = verify_pattern(payload, w.seed);
        result[0] = static_cast<std::uint32_t>(found.dropped);
        result[1] = static_cast<std::uint32_t>(found.wrong);
        result[2] = static_cast<std::uint32_t>(found.first_bad_element.value_or(0xFFFFFFFFU));
        const auto writer = s.flag_writers.find(w.flag);
        if (writer != s.flag_writers.end() && stream != nullptr) {
            stream->late_us += copy_time_us(
                s, writer->second.first, payload.allocation->device, writer->second.second, true);
        }

    } else if (!seen && stream != nullptr) {
        stream->late_us += static_cast<double>(w.budget_ns) / 1e3;
    }
    for (std::uint32_t i = 0; i < 4; ++i) {
        store_word(s, w.flag + 16U + 4U * i, result[i]);
    }
    s.flag_writers.erase(w.flag);  // a week's soak allocates a flag per lane and group
}

CUresult launch_copy_words(State& s, int device, CUstream stream, void** params) {
    const auto dst = param<CUdeviceptr>(params, 0);
    const auto src = param<CUdeviceptr>(params, 1);
    const auto count = param<std::uint64_t>(params, 2);
    const DeviceRange to = device_range(s, dst, count * 4U);
    const DeviceRange from = device_range(s, src, count * 4U);
    if (!to || !from || !reachable(s, device, to) || !reachable(s, device, from)) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    if (dst % 4U != 0 || src % 4U != 0) {
        return CUDA_ERROR_MISALIGNED_ADDRESS;
    }
    const double duration =
        copy_time_us(s, from.allocation->device, to.allocation->device, to.bytes, true);
    enqueue(stream, duration, [&s, device, dst, src, count] {
        const DeviceRange t = device_range(s, dst, count * 4U);
        const DeviceRange f = device_range(s, src, count * 4U);
        if (t && f) {
            move_words(s, device, t, f);
        }
    });
    return CUDA_SUCCESS;
}

CUresult launch_post(State& s, int device, CUstream stream, void** params) {
    const Post p{.payload = param<CUdeviceptr>(params, 0),
                 .src = param<CUdeviceptr>(params, 1),
                 .count = param<std::uint64_t>(params, 2),
                 .flag = param<CUdeviceptr>(params, 3),
                 .value = param<std::uint32_t>(params, 4)};
    const DeviceRange to = device_range(s, p.payload, p.count * 4U);
    const DeviceRange from = device_range(s, p.src, p.count * 4U);
    const DeviceRange flag = device_range(s, p.flag, 4);
    if (!to || !from || !flag || !reachable(s, device, to) || !reachable(s, device, from) ||
        !reachable(s, device, flag)) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    const double duration =
        copy_time_us(s, from.allocation->device, to.allocation->device, to.bytes, true);
    enqueue(stream, duration, [&s, stream, device, p] { run_post(s, stream, device, p); });
    return CUDA_SUCCESS;
}

CUresult launch_wait(State& s, int device, CUstream stream, void** params) {
    const Wait w{.flag = param<CUdeviceptr>(params, 0),
                 .payload = param<CUdeviceptr>(params, 1),
                 .count = param<std::uint64_t>(params, 2),
                 .seed = param<std::uint32_t>(params, 3),
                 .value = param<std::uint32_t>(params, 4),
                 .budget_ns = param<std::uint64_t>(params, 5)};
    const DeviceRange flag = device_range(s, w.flag, 32);
    const DeviceRange payload = device_range(s, w.payload, w.count * 4U);
    if (!flag || !payload || !reachable(s, device, flag) || !reachable(s, device, payload)) {
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    enqueue(stream, 0.0, [&s, stream, w] { run_wait(s, stream, w); });
    return CUDA_SUCCESS;
}

}  // namespace

bool is_peer_kernel(std::string_view name) {
    return name == kCopyWords || name == kHandshakePost || name == kHandshakeWait;
}

CUresult launch_peer_kernel(
    State& s, const CUfunc_st& function, CUstream stream, unsigned int blocks, void** params) {
    const int device = function.device;
    if (function.name == kCopyWords) {
        return launch_copy_words(s, device, stream, params);
    }
    // The handshake's kernels synchronise one block: the flag is stored after the block's
    // barrier, so a second block's payload could land after it.
    if (blocks != 1) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    return function.name == kHandshakePost ? launch_post(s, device, stream, params)
                                           : launch_wait(s, device, stream, params);
}

}  // namespace peergate::sim::cuda
