// SPDX-License-Identifier: Apache-2.0
#include "sources/cuda/cuda_copy_engine.hpp"

#include "sources/cuda/cuda_devices.hpp"
#include "sources/cuda/cuda_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>
#include <thread>

namespace peergate::sources::cuda {

namespace {

util::Unexpected invalid(const std::string& what) {
    return util::unexpected(util::ErrorCode::internal, what);
}

}  // namespace

util::Expected<std::unique_ptr<CudaCopyEngine>> CudaCopyEngine::open(
    std::shared_ptr<CudaDriver> driver, const CudaEngineOptions& options) {
    std::unique_ptr<CudaCopyEngine> engine(new CudaCopyEngine(std::move(driver), options.verify));
    for (const int ordinal : options.ordinals) {
        PEERGATE_TRY(engine->add_device(ordinal));
    }
    engine->enable_peers();
    if (engine->verify_ == model::VerifySite::device) {
        engine->load_kernels();
    }
    return engine;
}

CudaCopyEngine::~CudaCopyEngine() {
    if (poisoned_) {
        leak_everything();
    }
}

void CudaCopyEngine::leak_everything() noexcept {
    // A copy may still be in flight in a driver that stopped answering: freeing its
    // buffers could block, or let the DMA land in reused memory. So nothing is released;
    // the resources stay reachable (not leaked) until the short-lived process exits.
    struct Kept {
        std::map<engine::BufferId, Buffer> buffers;
        std::vector<StreamState> streams;
        std::vector<Device> devices;
        std::optional<PinnedHostBuffer> staging;
        std::shared_ptr<CudaDriver> driver;
    };

    static auto* kept = new std::vector<std::unique_ptr<Kept>>();  // NOLINT: never destroyed
    kept->push_back(std::make_unique<Kept>(Kept{std::move(buffers_),
                                                std::move(streams_),
                                                std::move(devices_),
                                                std::move(staging_),
                                                driver_}));
}

util::Expected<void> CudaCopyEngine::add_device(int ordinal) {
    CUdevice handle = 0;
    PEERGATE_TRY(check(api(), api().cuDeviceGet(&handle, ordinal), "cuDeviceGet"));
    auto context = PrimaryContext::retain(api(), handle);
    if (!context) {
        return util::unexpected(context.error());
    }
    devices_.push_back(Device{.ordinal = ordinal, .context = std::move(*context)});
    return {};
}

// Peer access wherever the driver allows it: without it cuMemcpyPeerAsync is staged
// through host memory and the silent-drop failure of the direct path cannot show.
void CudaCopyEngine::enable_peers() {
    const std::size_t n = devices_.size();
    paths_.assign(n, std::vector<model::CopyPath>(n, model::CopyPath::staged));
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t b = 0; b < n; ++b) {
            if (a == b) {
                paths_[a][b] = model::CopyPath::direct;
                continue;
            }
            // A copy from a to b is issued on a's stream and writes b's memory: a needs
            // access to b, and b to a for the reverse reads of a bidirectional run.
            const bool allowed = can_access_peer(api(), devices_[a].ordinal, devices_[b].ordinal);
            if (allowed && enable_peer_access(api(), devices_[a].context, devices_[b].context)) {
                paths_[a][b] = model::CopyPath::direct;
            }
        }
    }
}

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
    auto module = load_module(api(), kProbePtx);
    if (!module) {
        return util::unexpected(module.error());
    }
    PEERGATE_TRY(check(api(),
                       api().cuModuleGetFunction(&device.fill, module->get(), kFillKernel),
                       "cuModuleGetFunction"));
    PEERGATE_TRY(check(api(),
                       api().cuModuleGetFunction(&device.check, module->get(), kVerifyKernel),
                       "cuModuleGetFunction"));
    auto result = DeviceBuffer::allocate(api(), 16);
    if (!result) {
        return util::unexpected(result.error());
    }
    device.module = std::move(*module);
    device.result = std::move(*result);
    return {};
}

model::CopyPath CudaCopyEngine::path(int src, int dst) const {
    return paths_.at(static_cast<std::size_t>(src)).at(static_cast<std::size_t>(dst));
}

util::Expected<void> CudaCopyEngine::current(int device) {
    if (device < 0 || device >= device_count()) {
        return invalid(fmt::format("no engine device {}", device));
    }
    return devices_[static_cast<std::size_t>(device)].context.make_current(api());
}

util::Expected<engine::BufferId> CudaCopyEngine::allocate(int device, std::size_t bytes) {
    PEERGATE_TRY(current(device));
    auto memory = DeviceBuffer::allocate(api(), bytes);
    if (!memory) {
        return util::unexpected(memory.error());
    }
    const engine::BufferId id = next_buffer_++;
    buffers_.emplace(id, Buffer{.device = device, .memory = std::move(*memory)});
    return id;
}

void CudaCopyEngine::release(engine::BufferId buffer) {
    if (!poisoned_) {
        buffers_.erase(buffer);
    }
}

util::Expected<const CudaCopyEngine::Buffer*> CudaCopyEngine::buffer(engine::BufferId id) const {
    auto it = buffers_.find(id);
    if (it == buffers_.end()) {
        return invalid(fmt::format("no buffer {}", id));
    }
    return &it->second;
}

util::Expected<CudaCopyEngine::StreamState*> CudaCopyEngine::stream_state(engine::StreamId id) {
    if (id < 0 || static_cast<std::size_t>(id) >= streams_.size()) {
        return invalid(fmt::format("no stream {}", id));
    }
    StreamState* state = &streams_[static_cast<std::size_t>(id)];
    PEERGATE_TRY(current(state->device));
    return state;
}

util::Expected<engine::StreamId> CudaCopyEngine::create_stream(int device) {
    PEERGATE_TRY(current(device));
    auto stream = cuda::create_stream(api(), CU_STREAM_NON_BLOCKING);
    auto start = stream ? create_event(api(), CU_EVENT_DEFAULT) : util::unexpected(stream.error());
    auto end = start ? create_event(api(), CU_EVENT_DEFAULT) : util::unexpected(start.error());
    if (!end) {
        return util::unexpected(end.error());
    }
    streams_.push_back(StreamState{.device = device,
                                   .stream = std::move(*stream),
                                   .start = std::move(*start),
                                   .end = std::move(*end)});
    return static_cast<engine::StreamId>(streams_.size() - 1);
}

util::Expected<void*> CudaCopyEngine::staging(std::size_t bytes) {
    if (!staging_ || staging_->size() < bytes) {
        staging_.reset();
        auto pinned = PinnedHostBuffer::allocate(api(), bytes);
        if (!pinned) {
            return util::unexpected(pinned.error());
        }
        staging_ = std::move(*pinned);
    }
    return staging_->data();
}

util::Expected<std::pair<const CudaCopyEngine::Buffer*, const CudaCopyEngine::Buffer*>>
CudaCopyEngine::copy_ends(const engine::CopyJob& job) const {
    const Buffer* src = nullptr;
    const Buffer* dst = nullptr;
    if (job.kind != engine::CopyKind::host_to_device) {
        auto b = buffer(job.src);
        if (!b) {
            return util::unexpected(b.error());
        }
        src = *b;
    }
    if (job.kind != engine::CopyKind::device_to_host) {
        auto b = buffer(job.dst);
        if (!b) {
            return util::unexpected(b.error());
        }
        dst = *b;
    }
    return std::pair(src, dst);
}

// A peer copy goes straight across; the others pass through the pinned staging buffer: down
// to it (staged, device to host), then up from it (staged, host to device).
util::Expected<void> CudaCopyEngine::enqueue_one(const engine::CopyJob& job, CUstream stream) {
    auto ends = copy_ends(job);
    if (!ends) {
        return util::unexpected(ends.error());
    }
    const auto [src, dst] = *ends;
    const std::size_t bytes = (src != nullptr ? src : dst)->memory.size();
    const auto& a = api();
    if (job.kind == engine::CopyKind::peer) {
        const auto& s = devices_[static_cast<std::size_t>(src->device)].context;
        const auto& d = devices_[static_cast<std::size_t>(dst->device)].context;
        return check(a,
                     a.cuMemcpyPeerAsync(
                         dst->memory.get(), d.get(), src->memory.get(), s.get(), bytes, stream),
                     "cuMemcpyPeerAsync");
    }
    auto host = staging(bytes);
    if (!host) {
        return util::unexpected(host.error());
    }
    if (src != nullptr) {
        PEERGATE_TRY(check(a,
                           a.cuMemcpyDtoHAsync_v2(*host, src->memory.get(), bytes, stream),
                           "cuMemcpyDtoHAsync_v2"));
    }
    if (dst != nullptr) {
        return check(a,
                     a.cuMemcpyHtoDAsync_v2(dst->memory.get(), *host, bytes, stream),
                     "cuMemcpyHtoDAsync_v2");
    }
    return {};
}

util::Expected<void> CudaCopyEngine::enqueue_copy(const engine::CopyJob& job) {
    auto state = stream_state(job.stream);
    if (!state) {
        return util::unexpected(state.error());
    }
    StreamState& s = **state;
    const auto& a = api();
    PEERGATE_TRY(check(a, a.cuEventRecord(s.start.get(), s.stream.get()), "cuEventRecord"));
    PEERGATE_TRY(enqueue_one(job, s.stream.get()));
    PEERGATE_TRY(check(a, a.cuEventRecord(s.end.get(), s.stream.get()), "cuEventRecord"));
    s.timed = true;
    return {};
}

// Polls instead of blocking in cuStreamSynchronize, so a copy that never completes
// becomes a timeout instead of a hang.
util::Expected<void> CudaCopyEngine::wait(CUstream stream, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::microseconds(20);
    while (true) {
        const CUresult status = api().cuStreamQuery(stream);
        if (status != CUDA_ERROR_NOT_READY) {
            return check(api(), status, "cuStreamQuery");
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            poisoned_ = true;
            return util::unexpected(util::ErrorCode::timeout,
                                    "cuStreamQuery still answers CUDA_ERROR_NOT_READY");
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
}

util::Expected<std::optional<double>> CudaCopyEngine::synchronize(
    engine::StreamId stream, std::chrono::milliseconds timeout) {
    auto state = stream_state(stream);
    if (!state) {
        return util::unexpected(state.error());
    }
    StreamState& s = **state;
    PEERGATE_TRY(wait(s.stream.get(), timeout));
    if (!std::exchange(s.timed, false)) {
        return std::optional<double>{};
    }
    float ms = 0.0F;
    PEERGATE_TRY(check(
        api(), api().cuEventElapsedTime(&ms, s.start.get(), s.end.get()), "cuEventElapsedTime"));
    return std::optional<double>(static_cast<double>(ms) / 1000.0);
}

util::Expected<std::vector<double>> CudaCopyEngine::measure(
    const std::vector<engine::CopyJob>& jobs, int iterations, std::chrono::milliseconds timeout) {
    for (const auto& job : jobs) {
        auto state = stream_state(job.stream);
        if (!state) {
            return util::unexpected(state.error());
        }
        StreamState& s = **state;
        PEERGATE_TRY(
            check(api(), api().cuEventRecord(s.start.get(), s.stream.get()), "cuEventRecord"));
        for (int i = 0; i < iterations; ++i) {
            PEERGATE_TRY(enqueue_one(job, s.stream.get()));
        }
        PEERGATE_TRY(
            check(api(), api().cuEventRecord(s.end.get(), s.stream.get()), "cuEventRecord"));
        s.timed = true;
    }
    std::vector<double> seconds;
    for (const auto& job : jobs) {
        auto elapsed = synchronize(job.stream, timeout);
        if (!elapsed) {
            return util::unexpected(elapsed.error());
        }
        seconds.push_back(elapsed->value_or(0.0));
    }
    return seconds;
}

// Filling and comparing, on the device with the PTX kernels or on the host.
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
