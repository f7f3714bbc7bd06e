// SPDX-License-Identifier: Apache-2.0
// The CopyEngine's patterns: the PTX kernels loaded on each device, buffers filled with the
// sentinel or a cell's pattern, and compared on the device (12 bytes back per check) or, where
// the kernels cannot load, on the host in cache-sized chunks (docs/gate-rules.md, the probe).
#include "sources/cuda/cuda_copy_engine.hpp"
#include "sources/cuda/cuda_kernels.hpp"

#include <algorithm>
#include <array>
#include <span>

namespace peergate::sources::cuda {

void CudaCopyEngine::load_kernels() {
    for (auto& device : devices_) {
        if (auto loaded = load_kernels_on(device); !loaded) {
            verify_ = model::VerifySite::host;
            verify_note_ = "device-side verification unavailable (" + loaded.error().message +
                           "); comparing on the host instead";
            return;
        }
    }
}

util::Expected<void> CudaCopyEngine::load_kernels_on(Device& device) {
    PEERGATE_TRY(device.context.make_current(api()));
    const std::array<ModuleEntry, 2> entries{
        {{&device.fill, kFillKernel}, {&device.check, kVerifyKernel}}};
    auto module = load_module_functions(api(), kProbePtx, entries);
    if (!module) {
        return util::unexpected(module.error());
    }
    auto result = DeviceBuffer::allocate(api(), 16);
    if (!result) {
        return util::unexpected(result.error());
    }
    device.module = std::move(*module);
    device.result = std::move(*result);
    return {};
}

util::Expected<void> CudaCopyEngine::fill_sentinel(engine::BufferId id, engine::StreamId stream) {
    auto state = stream_state(stream);
    auto b = buffer(id);
    if (!state || !b) {
        return util::unexpected(!state ? state.error() : b.error());
    }
    const Buffer& target = **b;
    return check(api(),
                 api().cuMemsetD32Async(target.memory.get(),
                                        engine::kSentinelBits,
                                        target.memory.size() / 4U,
                                        (*state)->stream.get()),
                 "cuMemsetD32Async");
}

util::Expected<void> CudaCopyEngine::launch(CUfunction fn,
                                            std::uint64_t elements,
                                            CUstream stream,
                                            void** params) {
    const std::uint64_t wanted = (elements + kThreadsPerBlock - 1) / kThreadsPerBlock;
    const auto blocks = static_cast<unsigned int>(std::clamp<std::uint64_t>(wanted, 1, kMaxBlocks));
    return check(
        api(),
        api().cuLaunchKernel(fn, blocks, 1, 1, kThreadsPerBlock, 1, 1, 0, stream, params, nullptr),
        "cuLaunchKernel");
}

util::Expected<void> CudaCopyEngine::fill_pattern(engine::BufferId id,
                                                  std::uint32_t seed,
                                                  engine::StreamId stream) {
    auto state = stream_state(stream);
    auto b = buffer(id);
    if (!state || !b) {
        return util::unexpected(!state ? state.error() : b.error());
    }
    const Buffer& target = **b;
    CUdeviceptr data = target.memory.get();
    std::uint64_t count = target.memory.size() / 4U;
    const Device& device = devices_[static_cast<std::size_t>(target.device)];
    if (verify_ == model::VerifySite::device) {
        std::array<void*, 3> params{&data, &count, &seed};
        return launch(device.fill, count, (*state)->stream.get(), params.data());
    }
    host_scratch_.resize(static_cast<std::size_t>(count));
    engine::fill_pattern(host_scratch_, seed);
    counters_.host_bytes_out += target.memory.size();
    PEERGATE_TRY(device.context.make_current(api()));
    return check(api(),
                 api().cuMemcpyHtoD_v2(data, host_scratch_.data(), target.memory.size()),
                 "cuMemcpyHtoD_v2");
}

util::Expected<engine::VerifyCounts> CudaCopyEngine::verify(engine::BufferId id,
                                                            std::uint32_t seed,
                                                            engine::StreamId stream,
                                                            std::chrono::milliseconds timeout) {
    auto state = stream_state(stream);
    auto b = buffer(id);
    if (!state || !b) {
        return util::unexpected(!state ? state.error() : b.error());
    }
    if (verify_ == model::VerifySite::device) {
        return verify_on_device(**b, seed, **state, timeout);
    }
    return verify_on_host(**b, seed, **state, timeout);
}

// Only the three counters cross to the host: 12 bytes per check, whatever the size.
util::Expected<engine::VerifyCounts> CudaCopyEngine::verify_on_device(
    const Buffer& target,
    std::uint32_t seed,
    StreamState& stream,
    std::chrono::milliseconds timeout) {
    const Device& device = devices_[static_cast<std::size_t>(target.device)];
    PEERGATE_TRY(device.context.make_current(api()));
    CUdeviceptr result = device.result->get();
    CUstream s = stream.stream.get();
    PEERGATE_TRY(check(api(), api().cuMemsetD32Async(result, 0, 2, s), "cuMemsetD32Async"));
    PEERGATE_TRY(
        check(api(), api().cuMemsetD32Async(result + 8, 0xFFFFFFFFU, 1, s), "cuMemsetD32Async"));
    CUdeviceptr data = target.memory.get();
    std::uint64_t count = target.memory.size() / 4U;
    std::array<void*, 4> params{&data, &count, &seed, &result};
    PEERGATE_TRY(launch(device.check, count, s, params.data()));
    PEERGATE_TRY(wait(s, timeout));
    std::array<std::uint32_t, 3> counters{};
    PEERGATE_TRY(check(api(),
                       api().cuMemcpyDtoH_v2(counters.data(), result, sizeof(counters)),
                       "cuMemcpyDtoH_v2"));
    counters_.host_bytes_in += sizeof(counters);
    engine::VerifyCounts counts{.dropped = counters[0], .wrong = counters[1]};
    if (counters[2] != 0xFFFFFFFFU) {
        counts.first_bad_element = counters[2];
    }
    return counts;
}

// Copies back in L2-sized chunks and compares each while it is still in cache: the compare
// then costs a fraction of the copy, and the scratch stays small whatever the cell size.
util::Expected<engine::VerifyCounts> CudaCopyEngine::verify_on_host(
    const Buffer& target,
    std::uint32_t seed,
    StreamState& stream,
    std::chrono::milliseconds timeout) {
    constexpr std::size_t kChunkBytes = 1U << 20U;
    PEERGATE_TRY(wait(stream.stream.get(), timeout));
    const std::size_t total = target.memory.size();
    host_scratch_.resize(std::min(total, kChunkBytes) / 4U);
    engine::VerifyCounts counts;
    for (std::size_t offset = 0; offset < total; offset += kChunkBytes) {
        const std::size_t bytes = std::min(kChunkBytes, total - offset);
        PEERGATE_TRY(
            check(api(),
                  api().cuMemcpyDtoH_v2(host_scratch_.data(), target.memory.get() + offset, bytes),
                  "cuMemcpyDtoH_v2"));
        const std::span<const std::uint32_t> chunk(host_scratch_.data(), bytes / 4U);
        engine::accumulate(counts, engine::verify_pattern(chunk, seed, offset / 4U));
    }
    counters_.host_bytes_in += total;
    return counts;
}

}  // namespace peergate::sources::cuda
