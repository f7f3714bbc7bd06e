// SPDX-License-Identifier: Apache-2.0
#include "sources/cuda/cuda_copy_engine.hpp"

#include "sources/cuda/cuda_devices.hpp"

#include <fmt/format.h>

#include <algorithm>
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
    engine->load_peer_kernels();
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

}  // namespace peergate::sources::cuda
