// SPDX-License-Identifier: Apache-2.0
// The CopyEngine's SM paths (docs/probe.md, "Paths"): kernels that store into or load from a
// peer's memory through the peer mapping, and the flag handshake between a resident waiter on
// the destination and a writer on the source. The kernels are kPeerPtx, loaded on every
// device; where they cannot load, or the driver refused the peer mapping, the paths are
// unsupported and their cells skipped, never passed.
#include "sources/cuda/cuda_copy_engine.hpp"
#include "sources/cuda/cuda_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace peergate::sources::cuda {

namespace {

util::Unexpected invalid_path(const std::string& why) {
    return util::unexpected(util::ErrorCode::unavailable, why);
}

}  // namespace

void CudaCopyEngine::load_peer_kernels() {
    if (!api().has_kernels()) {
        peer_kernels_note_ = "this CUDA driver exports no module or launch entry points";
        return;
    }
    for (auto& device : devices_) {
        if (auto loaded = load_peer_kernels_on(device); !loaded) {
            peer_kernels_note_ = "the peer kernels did not load (" + loaded.error().message + ")";
            return;
        }
    }
}

util::Expected<void> CudaCopyEngine::load_peer_kernels_on(Device& device) {
    PEERGATE_TRY(device.context.make_current(api()));
    const std::array<ModuleEntry, 3> entries{{
        {&device.copy_words, kCopyWordsKernel},
        {&device.post, kHandshakePostKernel},
        {&device.wait, kHandshakeWaitKernel},
    }};
    auto module = load_module_functions(api(), kPeerPtx, entries);
    if (!module) {
        return util::unexpected(module.error());
    }
    device.peer_module = std::move(*module);
    return {};
}

std::optional<std::string> CudaCopyEngine::unsupported(model::ProbePath path,
                                                       int src,
                                                       int dst) const {
    if (path == model::ProbePath::ce) {
        return std::nullopt;
    }
    if (!peer_kernels_note_.empty()) {
        return peer_kernels_note_;
    }
    // The kernel that crosses runs on the source (stores, the handshake's writer) or on the
    // destination (loads): that GPU needs the mapping of the other's memory.
    const bool by_destination = path == model::ProbePath::sm_load;
    const int from = by_destination ? dst : src;
    const int to = by_destination ? src : dst;
    if (src != dst && this->path(from, to) != model::CopyPath::direct) {
        return "the driver refused peer access between these GPUs, so there is no peer "
               "mapping for a kernel to store or load through";
    }
    return std::nullopt;
}

util::Expected<void> CudaCopyEngine::launch_blocks(
    CUfunction fn, unsigned int blocks, unsigned int threads, CUstream stream, void** params) {
    return check(api(),
                 api().cuLaunchKernel(fn, blocks, 1, 1, threads, 1, 1, 0, stream, params, nullptr),
                 "cuLaunchKernel");
}

// The waiter goes first, on the destination, timed by the events of its stream; then the
// writer on the source. Whichever the GPUs run first, the waiter ends: on the flag or when
// its budget runs out.
util::Expected<void> CudaCopyEngine::enqueue_handshake(const engine::TransferJob& job,
                                                       const Buffer& payload,
                                                       const Buffer& source) {
    auto flag_buffer = buffer(job.flag);
    auto waiter = stream_state(job.wait_stream);
    if (!flag_buffer || !waiter) {
        return util::unexpected(!flag_buffer ? flag_buffer.error() : waiter.error());
    }
    StreamState& w = **waiter;
    CUdeviceptr flag = (*flag_buffer)->memory.get();
    CUdeviceptr data = payload.memory.get();
    CUdeviceptr from = source.memory.get();
    std::uint64_t count = payload.memory.size() / 4U;
    std::uint32_t seed = job.seed;
    std::uint32_t value = engine::handshake_flag_value(job.seed);
    std::uint64_t budget = static_cast<std::uint64_t>(job.budget.count());
    const Device& at = devices_[static_cast<std::size_t>(payload.device)];
    std::array<void*, 6> wait_params{&flag, &data, &count, &seed, &value, &budget};
    const auto& a = api();
    PEERGATE_TRY(check(a, a.cuEventRecord(w.start.get(), w.stream.get()), "cuEventRecord"));
    PEERGATE_TRY(launch_blocks(at.wait, 1, kHandshakeThreads, w.stream.get(), wait_params.data()));
    PEERGATE_TRY(check(a, a.cuEventRecord(w.end.get(), w.stream.get()), "cuEventRecord"));
    w.timed = true;
    auto writer = stream_state(job.stream);
    if (!writer) {
        return util::unexpected(writer.error());
    }
    const Device& by = devices_[static_cast<std::size_t>(source.device)];
    std::array<void*, 5> post_params{&data, &from, &count, &flag, &value};
    return launch_blocks(
        by.post, 1, kHandshakeThreads, (*writer)->stream.get(), post_params.data());
}

util::Expected<void> CudaCopyEngine::enqueue_transfer(const engine::TransferJob& job) {
    auto src = buffer(job.src);
    auto dst = buffer(job.dst);
    if (!src || !dst) {
        return util::unexpected(!src ? src.error() : dst.error());
    }
    if (auto why = unsupported(job.path, (*src)->device, (*dst)->device)) {
        return invalid_path(*why);
    }
    if (job.path == model::ProbePath::handshake) {
        return enqueue_handshake(job, **dst, **src);
    }
    auto state = stream_state(job.stream);
    if (!state) {
        return util::unexpected(state.error());
    }
    StreamState& s = **state;
    const Device& on = devices_[static_cast<std::size_t>(s.device)];
    CUdeviceptr to = (*dst)->memory.get();
    CUdeviceptr from = (*src)->memory.get();
    std::uint64_t count = (*dst)->memory.size() / 4U;
    std::array<void*, 3> params{&to, &from, &count};
    const std::uint64_t wanted = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
    const auto blocks = static_cast<unsigned int>(std::clamp<std::uint64_t>(wanted, 1, kMaxBlocks));
    const auto& a = api();
    PEERGATE_TRY(check(a, a.cuEventRecord(s.start.get(), s.stream.get()), "cuEventRecord"));
    PEERGATE_TRY(
        launch_blocks(on.copy_words, blocks, kThreadsPerBlock, s.stream.get(), params.data()));
    PEERGATE_TRY(check(a, a.cuEventRecord(s.end.get(), s.stream.get()), "cuEventRecord"));
    s.timed = true;
    return {};
}

// Only the waiter's four words cross to the host.
util::Expected<engine::HandshakeCounts> CudaCopyEngine::handshake_result(
    engine::BufferId flag, engine::StreamId stream, std::chrono::milliseconds timeout) {
    auto state = stream_state(stream);
    auto b = buffer(flag);
    if (!state || !b) {
        return util::unexpected(!state ? state.error() : b.error());
    }
    PEERGATE_TRY(wait((*state)->stream.get(), timeout));
    PEERGATE_TRY(devices_[static_cast<std::size_t>((*b)->device)].context.make_current(api()));
    std::array<std::uint32_t, 4> words{};
    PEERGATE_TRY(
        check(api(),
              api().cuMemcpyDtoH_v2(
                  words.data(), (*b)->memory.get() + kHandshakeResultOffset, sizeof(words)),
              "cuMemcpyDtoH_v2"));
    counters_.host_bytes_in += sizeof(words);
    engine::HandshakeCounts counts{.flag_seen = words[3] == 1U,
                                   .payload = {.dropped = words[0], .wrong = words[1]}};
    if (words[2] != 0xFFFFFFFFU) {
        counts.payload.first_bad_element = words[2];
    }
    return counts;
}

}  // namespace peergate::sources::cuda
