// SPDX-License-Identifier: Apache-2.0
// The CopyEngine over the CUDA driver API: primary contexts, peer access enabled wherever
// cuDeviceCanAccessPeer allows (so copies take the direct path llama.cpp uses with
// GGML_CUDA_P2P), device-side fill and compare with the PTX kernels (host fallback), and
// synchronisation by polling with a deadline.
#pragma once

#include "engine/copy_engine.hpp"
#include "sources/cuda/cuda_handles.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::sources::cuda {

struct CudaEngineOptions {
    std::vector<int> ordinals;  // CUDA ordinals; engine device p is ordinals[p]
    model::VerifySite verify = model::VerifySite::device;
};

class CudaCopyEngine final : public engine::CopyEngine {
public:
    // Retains the contexts, enables peer access, loads the kernels (device verification).
    static util::Expected<std::unique_ptr<CudaCopyEngine>> open(std::shared_ptr<CudaDriver> driver,
                                                                const CudaEngineOptions& options);
    CudaCopyEngine(const CudaCopyEngine&) = delete;
    CudaCopyEngine& operator=(const CudaCopyEngine&) = delete;
    ~CudaCopyEngine() override;

    // Why verification is not where it was asked to be (empty when it is).
    const std::string& verify_note() const { return verify_note_; }

    int device_count() const override { return static_cast<int>(devices_.size()); }

    model::CopyPath path(int src, int dst) const override;

    model::VerifySite verify_site() const override { return verify_; }

    util::Expected<engine::BufferId> allocate(int device, std::size_t bytes) override;
    void release(engine::BufferId buffer) override;
    util::Expected<engine::StreamId> create_stream(int device) override;
    util::Expected<void> fill_sentinel(engine::BufferId buffer, engine::StreamId stream) override;
    util::Expected<void> fill_pattern(engine::BufferId buffer,
                                      std::uint32_t seed,
                                      engine::StreamId stream) override;
    util::Expected<void> enqueue_copy(const engine::CopyJob& job) override;
    util::Expected<std::optional<double>> synchronize(engine::StreamId stream,
                                                      std::chrono::milliseconds timeout) override;
    util::Expected<engine::VerifyCounts> verify(engine::BufferId buffer,
                                                std::uint32_t seed,
                                                engine::StreamId stream,
                                                std::chrono::milliseconds timeout) override;
    util::Expected<std::vector<double>> measure(const std::vector<engine::CopyJob>& jobs,
                                                int iterations,
                                                std::chrono::milliseconds timeout) override;

    std::optional<std::string> unsupported(model::ProbePath path, int src, int dst) const override;
    util::Expected<void> enqueue_transfer(const engine::TransferJob& job) override;
    util::Expected<engine::HandshakeCounts> handshake_result(
        engine::BufferId flag, engine::StreamId stream, std::chrono::milliseconds timeout) override;

    engine::EngineCounters counters() const override { return counters_; }

private:
    struct Device {
        int ordinal = 0;
        PrimaryContext context;
        std::optional<Module> module;
        CUfunction fill = nullptr;
        CUfunction check = nullptr;
        std::optional<DeviceBuffer> result;  // 3 x u32 the verify kernel writes
        std::optional<Module> peer_module;   // kPeerPtx: the SM paths' kernels
        CUfunction copy_words = nullptr;
        CUfunction post = nullptr;
        CUfunction wait = nullptr;
    };

    struct Buffer {
        int device = 0;
        DeviceBuffer memory;
    };

    struct StreamState {
        int device = 0;
        Stream stream;
        Event start;
        Event end;
        bool timed = false;  // start/end recorded around the last copy
    };

    CudaCopyEngine(std::shared_ptr<CudaDriver> driver, model::VerifySite verify)
        : driver_(std::move(driver)), verify_(verify) {}

    const CudaApi& api() const { return driver_->api; }

    util::Expected<void> add_device(int ordinal);
    void enable_peers();
    void load_kernels();
    util::Expected<void> load_kernels_on(Device& device);
    void load_peer_kernels();
    util::Expected<void> load_peer_kernels_on(Device& device);
    util::Expected<void> launch_blocks(
        CUfunction fn, unsigned int blocks, unsigned int threads, CUstream stream, void** params);
    util::Expected<void> enqueue_handshake(const engine::TransferJob& job,
                                           const Buffer& payload,
                                           const Buffer& source);
    util::Expected<const Buffer*> buffer(engine::BufferId id) const;
    util::Expected<StreamState*> stream_state(engine::StreamId id);
    util::Expected<void> current(int device);
    util::Expected<void*> staging(std::size_t bytes);
    // The job's device buffers, source then destination; the host end of a copy to or from
    // the host is nullptr (the staging buffer).
    util::Expected<std::pair<const Buffer*, const Buffer*>> copy_ends(
        const engine::CopyJob& job) const;
    util::Expected<void> enqueue_one(const engine::CopyJob& job, CUstream stream);
    util::Expected<void> wait(CUstream stream, std::chrono::milliseconds timeout);
    util::Expected<void> launch(CUfunction fn,
                                std::uint64_t elements,
                                CUstream stream,
                                void** params);
    util::Expected<engine::VerifyCounts> verify_on_device(const Buffer& buffer,
                                                          std::uint32_t seed,
                                                          StreamState& stream,
                                                          std::chrono::milliseconds timeout);
    util::Expected<engine::VerifyCounts> verify_on_host(const Buffer& buffer,
                                                        std::uint32_t seed,
                                                        StreamState& stream,
                                                        std::chrono::milliseconds timeout);
    void leak_everything() noexcept;

    std::shared_ptr<CudaDriver> driver_;
    model::VerifySite verify_;
    std::string verify_note_;
    std::string peer_kernels_note_;  // why the SM paths' kernels did not load ("" if they did)
    std::vector<Device> devices_;
    std::vector<std::vector<model::CopyPath>> paths_;
    std::map<engine::BufferId, Buffer> buffers_;
    engine::BufferId next_buffer_ = 0;
    std::vector<StreamState> streams_;
    std::optional<PinnedHostBuffer> staging_;
    std::vector<std::uint32_t> host_scratch_;
    engine::EngineCounters counters_;
    bool poisoned_ = false;  // a synchronisation timed out: the driver may be stuck
};

}  // namespace peergate::sources::cuda
