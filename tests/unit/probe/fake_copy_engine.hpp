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

    util::Expected<void> enqueue_copy(const engine::CopyJob& job) override {
        // A copy is in flight from its enqueue until its stream runs it; a load fault looks
        // at the most copies in flight during that time, whatever order streams drain in.
        const int in_flight = ++in_flight_;
        max_inflight_seen = std::max(max_inflight_seen, in_flight);
        auto peak = std::make_shared<int>(in_flight);
        for (auto& other : pending_) {
            *other = std::max(*other, in_flight);
        }
        pending_.push_back(peak);
        streams_.at(static_cast<std::size_t>(job.stream)).work.push_back([this, job, peak] {
            --in_flight_;
            pending_.erase(std::find(pending_.begin(), pending_.end(), peak));
            const auto fault = fault_for(job, *peak);
            ++copies_run;
            auto& to = buffers_.at(job.dst).data;
            const auto& from = buffers_.at(job.src).data;
            for (std::size_t i = 0; i < to.size(); ++i) {
                if (!fault) {
                    to[i] = from[i];
                } else if (fault->corrupt) {
                    to[i] = i % 2 == 0 ? from[i] ^ 1U : from[i];
                }
            }
        });
        streams_.at(static_cast<std::size_t>(job.stream)).timed = true;
        return {};
    }

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

    std::optional<FakeCopyFault> fault_for(const engine::CopyJob& job, int in_flight) const {
        const int src = buffers_.at(job.src).device;
        const int dst = buffers_.at(job.dst).device;
        for (const auto& f : faults) {
            if ((f.src < 0 || f.src == src) && (f.dst < 0 || f.dst == dst) &&
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
