// SPDX-License-Identifier: Apache-2.0
// An in-memory CopyEngine for unit tests of the runs: buffers are vectors, copies run when
// their stream is synchronised, and faults are data (drop or corrupt a pair's copies, only
// above a size, while enough copies are in flight or after enough copies; fail an
// allocation; time out).
#pragma once

#include "engine/copy_engine.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace peergate::test {

struct FakeCopyFault {
    int src = -1;  // engine positions, -1 any
    int dst = -1;
    bool corrupt = false;  // else drop
    std::size_t min_bytes = 0;
    int min_inflight = 0;
    int after_copies = 0;  // only once this many copies have run (an intermittent fault)
    // The path it hits; nullopt: every path.
    std::optional<model::ProbePath> path = model::ProbePath::ce;
    bool lose_flag = false;  // handshake: the flag never arrives (the payload does)
};

class FakeCopyEngine final : public engine::CopyEngine {
public:
    explicit FakeCopyEngine(int devices) : devices_(devices) {}

    std::vector<FakeCopyFault> faults;
    std::optional<int> fail_alloc_on;  // device whose allocations fail
    int timeout_on_sync = -1;          // the Nth synchronize (0-based) times out
    int seconds_per_copy_ms = 1;
    model::CopyPath copy_path = model::CopyPath::direct;
    int max_inflight_seen = 0;
    int copies_run = 0;
    std::vector<std::uint32_t> pattern_seeds;  // every fill_pattern's seed, in order
    std::map<model::ProbePath, std::string> unsupported_paths;  // path -> why
    std::vector<engine::TransferJob> transfers;                 // every SM-path job, in order

    struct TransferDevices {
        int src = -1, dst = -1, flag = -1, stream = -1, wait_stream = -1;
    };

    std::vector<TransferDevices> transfer_devices;  // where each job's parts were

    int live_buffers() const { return static_cast<int>(buffers_.size()); }

    int device_count() const override { return devices_; }

    model::CopyPath path(int, int) const override { return copy_path; }

    model::VerifySite verify_site() const override { return model::VerifySite::host; }

    engine::EngineCounters counters() const override { return {}; }

    util::Expected<engine::BufferId> allocate(int device, std::size_t bytes) override {
        if (fail_alloc_on && *fail_alloc_on == device) {
            return util::unexpected(util::ErrorCode::unavailable, "out of memory");
        }
        buffers_[next_] = Buffer{device, std::vector<std::uint32_t>(bytes / 4, 0)};
        return next_++;
    }

    void release(engine::BufferId id) override { buffers_.erase(id); }

    util::Expected<engine::StreamId> create_stream(int device) override {
        streams_.push_back(Stream{device, {}, false});
        return static_cast<engine::StreamId>(streams_.size() - 1);
    }

    util::Expected<void> fill_sentinel(engine::BufferId id, engine::StreamId) override {
        auto& d = buffers_.at(id).data;
        std::fill(d.begin(), d.end(), engine::kSentinelBits);
        return {};
    }

    util::Expected<void> fill_pattern(engine::BufferId id,
                                      std::uint32_t seed,
                                      engine::StreamId) override {
        pattern_seeds.push_back(seed);
        engine::fill_pattern(buffers_.at(id).data, seed);
        return {};
    }

    std::optional<std::string> unsupported(model::ProbePath path, int, int) const override {
        const auto it = unsupported_paths.find(path);
        return it == unsupported_paths.end() ? std::nullopt : std::optional(it->second);
    }

    // An SM path runs as a copy would, with the faults of its path; a handshake does all its
    // work on the waiter's stream and leaves {dropped, wrong, first bad, seen} in the flag
    // buffer's words 4..7, as the waiter kernel does.
    util::Expected<void> enqueue_transfer(const engine::TransferJob& job) override {
        transfers.push_back(job);
        transfer_devices.push_back(
            {.src = device_of(job.src),
             .dst = device_of(job.dst),
             .flag = job.flag >= 0 ? device_of(job.flag) : -1,
             .stream = stream_device(job.stream),
             .wait_stream = job.wait_stream >= 0 ? stream_device(job.wait_stream) : -1});
        const engine::CopyJob copy{
            .kind = engine::CopyKind::peer, .dst = job.dst, .src = job.src, .stream = job.stream};
        if (job.path != model::ProbePath::handshake) {
            return enqueue_on(copy, job.path, job.stream);
        }
        auto& waiter = streams_.at(static_cast<std::size_t>(job.wait_stream));
        waiter.work.push_back([this, job, copy] {
            const auto fault = fault_for(copy, 1, job.path);
            auto& flag = buffers_.at(job.flag).data;
            std::fill(flag.begin() + 4, flag.end(), 0U);
            if (fault && fault->lose_flag) {
                return;  // words 4..7 stay zero: not seen
            }
            move_words(copy, fault);
            const auto found = engine::verify_pattern(buffers_.at(job.dst).data, job.seed);
            flag[4] = static_cast<std::uint32_t>(found.dropped);
            flag[5] = static_cast<std::uint32_t>(found.wrong);
            flag[6] = static_cast<std::uint32_t>(found.first_bad_element.value_or(0xFFFFFFFFU));
            flag[7] = 1U;
        });
        waiter.timed = true;
        return {};
    }

    util::Expected<engine::HandshakeCounts> handshake_result(engine::BufferId flag,
                                                             engine::StreamId,
                                                             std::chrono::milliseconds) override {
        const auto& words = buffers_.at(flag).data;
        engine::HandshakeCounts counts{.flag_seen = words.at(7) == 1U,
                                       .payload = {.dropped = words[4], .wrong = words[5]}};
        if (words[6] != 0xFFFFFFFFU) {
            counts.payload.first_bad_element = words[6];
        }
        return counts;
    }

    util::Expected<void> enqueue_copy(const engine::CopyJob& job) override {
        return enqueue_on(job, model::ProbePath::ce, job.stream);
    }

private:
    util::Expected<void> enqueue_on(const engine::CopyJob& job,
                                    model::ProbePath path,
                                    engine::StreamId stream) {
        // A copy is in flight from its enqueue until its stream runs it; a load fault looks
        // at the most copies in flight during that time, whatever order streams drain in.
        const int in_flight = ++in_flight_;
        max_inflight_seen = std::max(max_inflight_seen, in_flight);
        auto peak = std::make_shared<int>(in_flight);
        for (auto& other : pending_) {
            *other = std::max(*other, in_flight);
        }
        pending_.push_back(peak);
        streams_.at(static_cast<std::size_t>(stream)).work.push_back([this, job, peak, path] {
            --in_flight_;
            pending_.erase(std::find(pending_.begin(), pending_.end(), peak));
            const auto fault = fault_for(job, *peak, path);
            ++copies_run;
            move_words(job, fault);
        });
        streams_.at(static_cast<std::size_t>(stream)).timed = true;
        return {};
    }

    void move_words(const engine::CopyJob& job, const std::optional<FakeCopyFault>& fault) {
        auto& to = buffers_.at(job.dst).data;
        const auto& from = buffers_.at(job.src).data;
        for (std::size_t i = 0; i < to.size(); ++i) {
            if (!fault || fault->lose_flag) {
                to[i] = from[i];
            } else if (fault->corrupt) {
                to[i] = i % 2 == 0 ? from[i] ^ 1U : from[i];
            }
        }
    }

public:
    util::Expected<std::optional<double>> synchronize(engine::StreamId id,
                                                      std::chrono::milliseconds) override {
        if (syncs_++ == timeout_on_sync) {
            return util::unexpected(util::ErrorCode::timeout, "still running");
        }
        auto& s = streams_.at(static_cast<std::size_t>(id));
        while (!s.work.empty()) {
            s.work.front()();
            s.work.pop_front();
        }
        return std::exchange(s.timed, false) ? std::optional<double>(seconds_per_copy_ms / 1000.0)
                                             : std::optional<double>();
    }

    util::Expected<engine::VerifyCounts> verify(engine::BufferId id,
                                                std::uint32_t seed,
                                                engine::StreamId,
                                                std::chrono::milliseconds) override {
        return engine::verify_pattern(buffers_.at(id).data, seed);
    }

    util::Expected<std::vector<double>> measure(const std::vector<engine::CopyJob>& jobs,
                                                int iterations,
                                                std::chrono::milliseconds) override {
        std::vector<double> seconds;
        for (const auto& job : jobs) {
            const double gbps = rate_gbps ? rate_gbps(job) : 10.0;
            const auto bytes = static_cast<double>(job.kind == engine::CopyKind::host_to_device
                                                       ? buffers_.at(job.dst).data.size()
                                                       : buffers_.at(job.src).data.size()) *
                               4.0;
            seconds.push_back(bytes * iterations / (gbps * 1e9));
        }
        return seconds;
    }

    std::function<double(const engine::CopyJob&)> rate_gbps;  // for measure()

    int device_of(engine::BufferId id) const { return buffers_.at(id).device; }

    int stream_device(engine::StreamId id) const {
        return streams_.at(static_cast<std::size_t>(id)).device;
    }

private:
    struct Buffer {
        int device = 0;
        std::vector<std::uint32_t> data;
    };

    struct Stream {
        int device = 0;
        std::deque<std::function<void()>> work;
        bool timed = false;
    };

    std::optional<FakeCopyFault> fault_for(const engine::CopyJob& job,
                                           int in_flight,
                                           model::ProbePath path) const {
        const int src = buffers_.at(job.src).device;
        const int dst = buffers_.at(job.dst).device;
        for (const auto& f : faults) {
            if ((f.src < 0 || f.src == src) && (f.dst < 0 || f.dst == dst) &&
                (!f.path || *f.path == path) &&
                buffers_.at(job.src).data.size() * 4 >= f.min_bytes &&
                in_flight >= f.min_inflight && copies_run >= f.after_copies) {
                return f;
            }
        }
        return std::nullopt;
    }

    int devices_;
    std::map<engine::BufferId, Buffer> buffers_;
    engine::BufferId next_ = 0;
    std::vector<Stream> streams_;
    int in_flight_ = 0;
    std::vector<std::shared_ptr<int>> pending_;
    int syncs_ = 0;
};

}  // namespace peergate::test
