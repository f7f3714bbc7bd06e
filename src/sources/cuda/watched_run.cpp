// SPDX-License-Identifier: Apache-2.0
#include "sources/cuda/watched_run.hpp"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <type_traits>

namespace peergate::sources::cuda {

namespace {

using Clock = std::chrono::steady_clock;

// What the worker and the caller share; the worker keeps it alive if it is abandoned.
struct Watch {
    std::mutex mutex;
    std::condition_variable changed;
    bool done = false;
    std::atomic<std::int64_t> call_started{0};  // Clock ticks; 0 = no call in progress
    std::atomic<const char*> call{""};
    WatchOutcome outcome;
};

std::int64_t ticks() {
    return Clock::now().time_since_epoch().count();
}

// Forwards every call, stamping when it started so the caller can see one that hangs.
class WatchedEngine final : public engine::CopyEngine {
public:
    WatchedEngine(engine::CopyEngine& inner, Watch& watch) : inner_(inner), watch_(watch) {}

    int device_count() const override { return inner_.device_count(); }

    model::CopyPath path(int s, int d) const override { return inner_.path(s, d); }

    model::VerifySite verify_site() const override { return inner_.verify_site(); }

    engine::EngineCounters counters() const override { return inner_.counters(); }

    util::Expected<engine::BufferId> allocate(int device, std::size_t bytes) override {
        return call("allocate", [&] { return inner_.allocate(device, bytes); });
    }

    void release(engine::BufferId buffer) override {
        call("release", [&] {
            inner_.release(buffer);
            return 0;
        });
    }

    util::Expected<engine::StreamId> create_stream(int device) override {
        return call("create_stream", [&] { return inner_.create_stream(device); });
    }

    util::Expected<void> fill_sentinel(engine::BufferId b, engine::StreamId s) override {
        return call("fill_sentinel", [&] { return inner_.fill_sentinel(b, s); });
    }

    util::Expected<void> fill_pattern(engine::BufferId b,
                                      std::uint32_t seed,
                                      engine::StreamId s) override {
        return call("fill_pattern", [&] { return inner_.fill_pattern(b, seed, s); });
    }

    util::Expected<void> enqueue_copy(const engine::CopyJob& job) override {
        return call("enqueue_copy", [&] { return inner_.enqueue_copy(job); });
    }

    util::Expected<std::optional<double>> synchronize(engine::StreamId s,
                                                      std::chrono::milliseconds t) override {
        return call("synchronize", [&] { return inner_.synchronize(s, t); });
    }

    util::Expected<engine::VerifyCounts> verify(engine::BufferId b,
                                                std::uint32_t seed,
                                                engine::StreamId s,
                                                std::chrono::milliseconds t) override {
        return call("verify", [&] { return inner_.verify(b, seed, s, t); });
    }

    util::Expected<std::vector<double>> measure(const std::vector<engine::CopyJob>& jobs,
                                                int n,
                                                std::chrono::milliseconds t) override {
        return call("measure", [&] { return inner_.measure(jobs, n, t); });
    }

    std::optional<std::string> unsupported(model::ProbePath p, int s, int d) const override {
        return inner_.unsupported(p, s, d);
    }

    util::Expected<void> enqueue_transfer(const engine::TransferJob& job) override {
        return call("enqueue_transfer", [&] { return inner_.enqueue_transfer(job); });
    }

    util::Expected<engine::HandshakeCounts> handshake_result(engine::BufferId flag,
                                                             engine::StreamId s,
                                                             std::chrono::milliseconds t) override {
        return call("handshake_result", [&] { return inner_.handshake_result(flag, s, t); });
    }

private:
    template <typename F>
    std::invoke_result_t<F> call(const char* name, F&& f) {
        watch_.call.store(name);
        watch_.call_started.store(ticks());
        auto result = f();
        watch_.call_started.store(0);
        return result;
    }

    engine::CopyEngine& inner_;
    Watch& watch_;
};

void work_on(const std::shared_ptr<Watch>& watch,
             const EngineOpener& open,
             const EngineWork& work) {
    watch->call.store("opening the CUDA engine");
    watch->call_started.store(ticks());
    auto engine = open();
    watch->call_started.store(0);
    if (!engine) {
        std::lock_guard lock(watch->mutex);
        watch->outcome.open_error = engine.error().message;
    } else {
        {
            std::lock_guard lock(watch->mutex);
            watch->outcome.opened = true;
        }
        WatchedEngine watched(**engine, *watch);
        work(watched);
    }
    std::lock_guard lock(watch->mutex);
    watch->done = true;
    watch->changed.notify_all();
}

}  // namespace

WatchOutcome run_watched(EngineOpener open, EngineWork work, std::chrono::milliseconds limit) {
    auto watch = std::make_shared<Watch>();
    std::thread worker(
        [watch, open = std::move(open), work = std::move(work)] { work_on(watch, open, work); });
    // A synchronisation polls up to `limit` itself; give it a little more before
    // concluding that the driver call itself is stuck.
    const auto grace = limit + std::chrono::seconds(2);
    std::unique_lock lock(watch->mutex);
    while (!watch->done) {
        watch->changed.wait_for(lock, std::chrono::milliseconds(50));
        const std::int64_t started = watch->call_started.load();
        if (!watch->done && started != 0 &&
            Clock::now() - Clock::time_point(Clock::duration(started)) > grace) {
            watch->outcome.abandoned = fmt::format(
                "watchdog: the driver call in '{}' did not return within {:.1f} s; abandoned",
                watch->call.load(),
                std::chrono::duration<double>(grace).count());
            WatchOutcome outcome = watch->outcome;
            lock.unlock();
            worker.detach();
            return outcome;
        }
    }
    WatchOutcome outcome = watch->outcome;
    outcome.finished = true;
    lock.unlock();
    worker.join();
    return outcome;
}

bool run_within(const std::function<void()>& work, std::chrono::milliseconds limit) {
    struct Shared {
        std::mutex mutex;
        std::condition_variable changed;
        bool done = false;
    };

    auto shared = std::make_shared<Shared>();
    std::thread worker([shared, work] {
        work();
        std::lock_guard lock(shared->mutex);
        shared->done = true;
        shared->changed.notify_all();
    });
    std::unique_lock lock(shared->mutex);
    if (!shared->changed.wait_for(lock, limit, [&] { return shared->done; })) {
        lock.unlock();
        worker.detach();
        return false;
    }
    lock.unlock();
    worker.join();
    return true;
}

}  // namespace peergate::sources::cuda
