// SPDX-License-Identifier: Apache-2.0
#include "engine/bandwidth.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::engine {

namespace {

// Buffers that go back to the engine when the measurement is done.
class BufferSet {
public:
    explicit BufferSet(CopyEngine& engine) : engine_(engine) {}

    BufferSet(const BufferSet&) = delete;
    BufferSet& operator=(const BufferSet&) = delete;

    ~BufferSet() {
        for (const auto id : ids_) {
            engine_.release(id);
        }
    }

    util::Expected<BufferId> add(int device, std::uint64_t bytes) {
        auto id = engine_.allocate(device, static_cast<std::size_t>(bytes));
        if (id) {
            ids_.push_back(*id);
        }
        return id;
    }

private:
    CopyEngine& engine_;
    std::vector<BufferId> ids_;
};

// Warm-up, then samples; each sample is `bytes_per_iteration * iterations / slowest job`.
util::Expected<SampleStats> sample_rate(CopyEngine& engine,
                                        const BenchPlan& plan,
                                        const std::vector<CopyJob>& jobs,
                                        double bytes_per_iteration,
                                        int iterations) {
    for (int w = 0; w < plan.warmup; ++w) {
        PEERGATE_TRY(engine.measure(jobs, iterations, plan.timeout));
    }
    std::vector<double> rates;
    for (int s = 0; s < plan.samples; ++s) {
        auto seconds = engine.measure(jobs, iterations, plan.timeout);
        if (!seconds) {
            return util::unexpected(seconds.error());
        }
        const double slowest = *std::max_element(seconds->begin(), seconds->end());
        if (slowest <= 0.0) {
            return util::unexpected(util::ErrorCode::internal, "a copy took no measurable time");
        }
        rates.push_back(bytes_per_iteration * iterations / slowest);
    }
    return summarize(std::move(rates));
}

// Latency: seconds per small copy (the inverse of the "rate" of one byte per copy).
util::Expected<SampleStats> sample_latency(CopyEngine& engine,
                                           const BenchPlan& plan,
                                           const CopyJob& job) {
    auto rate = sample_rate(engine, plan, {job}, 1.0, plan.latency_iterations);
    if (!rate) {
        return util::unexpected(rate.error());
    }
    std::vector<double> seconds;
    for (const double r : rate->samples) {
        seconds.push_back(1.0 / r);
    }
    return summarize(std::move(seconds));
}

struct PairSetup {
    BufferId a = -1, b = -1, a2 = -1, b2 = -1;
    StreamId ab = -1, ba = -1;
};

util::Expected<PairSetup> set_up_pair(
    CopyEngine& engine, BufferSet& buffers, int a, int b, std::uint64_t bytes) {
    PairSetup s;
    auto take = [](auto expected, auto& slot) -> util::Expected<void> {
        if (!expected) {
            return util::unexpected(expected.error());
        }
        slot = *expected;
        return {};
    };
    PEERGATE_TRY(take(buffers.add(a, bytes), s.a));
    PEERGATE_TRY(take(buffers.add(b, bytes), s.b));
    PEERGATE_TRY(take(buffers.add(a, bytes), s.a2));
    PEERGATE_TRY(take(buffers.add(b, bytes), s.b2));
    PEERGATE_TRY(take(engine.create_stream(a), s.ab));
    PEERGATE_TRY(take(engine.create_stream(b), s.ba));
    return s;
}

// Keeps a measurement, or notes why there is none.
void keep(util::Expected<SampleStats> measured,
          std::optional<SampleStats>& slot,
          std::string& error,
          const char* what) {
    if (measured) {
        slot = std::move(*measured);
    } else if (error.empty()) {
        error = fmt::format("{}: {}", what, measured.error().message);
    }
}

void measure_pair(CopyEngine& engine, const BenchPlan& plan, PairBandwidth& out, int a, int b) {
    BufferSet buffers(engine);
    auto s = set_up_pair(engine, buffers, a, b, plan.size_bytes);
    if (!s) {
        out.error = "setup: " + s.error().message;
        return;
    }
    const auto bytes = static_cast<double>(plan.size_bytes);
    const CopyJob forward{CopyKind::peer, s->b, s->a, s->ab};
    const CopyJob backward{CopyKind::peer, s->a2, s->b2, s->ba};
    const CopyJob staged{CopyKind::staged, s->b, s->a, s->ab};
    keep(sample_rate(engine, plan, {forward}, bytes, plan.iterations), out.p2p, out.error, "p2p");
    keep(sample_rate(engine, plan, {staged}, bytes, plan.iterations),
         out.staged,
         out.error,
         "staged");
    keep(sample_rate(engine, plan, {forward, backward}, 2 * bytes, plan.iterations),
         out.bidirectional,
         out.error,
         "bidirectional");
    if (plan.latency) {
        auto small_src = buffers.add(a, plan.latency_bytes);
        auto small_dst = small_src ? buffers.add(b, plan.latency_bytes) : small_src;
        if (small_src && small_dst) {
            keep(sample_latency(engine, plan, {CopyKind::peer, *small_dst, *small_src, s->ab}),
                 out.latency,
                 out.error,
                 "latency");
        }
    }
}

void measure_device(CopyEngine& engine, const BenchPlan& plan, DeviceBandwidth& out) {
    BufferSet buffers(engine);
    auto a = buffers.add(0, plan.size_bytes);
    auto b = a ? buffers.add(0, plan.size_bytes) : a;
    auto stream = engine.create_stream(0);
    if (!a || !b || !stream) {
        out.error = "setup: " + (!a ? a.error() : !b ? b.error() : stream.error()).message;
        return;
    }
    const auto bytes = static_cast<double>(plan.size_bytes);
    keep(sample_rate(engine, plan, {{CopyKind::peer, *b, *a, *stream}}, bytes, plan.iterations),
         out.device_local,
         out.error,
         "device-local");
    keep(sample_rate(
             engine, plan, {{CopyKind::host_to_device, *b, -1, *stream}}, bytes, plan.iterations),
         out.host_to_device,
         out.error,
         "host to device");
    keep(sample_rate(
             engine, plan, {{CopyKind::device_to_host, -1, *a, *stream}}, bytes, plan.iterations),
         out.device_to_host,
         out.error,
         "device to host");
}

}  // namespace

SampleStats summarize(std::vector<double> samples) {
    SampleStats stats;
    if (samples.empty()) {
        return stats;
    }
    stats.samples = samples;
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    stats.min = samples.front();
    stats.max = samples.back();
    stats.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
    return stats;
}

util::Expected<BenchPlan> make_bench_plan(const BenchRequest& request) {
    if (request.size_mib <= 0 || request.size_mib > 16 * 1024) {
        return util::unexpected(
            util::ErrorCode::invalid_input,
            fmt::format("--size-mib: {} is not a size from 1 to 16384 MiB", request.size_mib));
    }
    if (request.warmup < 0 || request.samples <= 0 || request.iterations <= 0) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "warm-up, samples and iterations must be positive");
    }
    return BenchPlan{.gpus = request.gpus,
                     .size_bytes = static_cast<std::uint64_t>(request.size_mib) << 20U,
                     .latency = request.latency,
                     .warmup = request.warmup,
                     .samples = request.samples,
                     .iterations = request.iterations,
                     .timeout = request.timeout};
}

BenchResult run_bench(CopyEngine& engine, const BenchPlan& plan) {
    BenchResult result{.gpus = plan.gpus, .size_bytes = plan.size_bytes};
    const int count = static_cast<int>(plan.gpus.size());
    if (count == 1) {
        DeviceBandwidth device{.gpu = plan.gpus.front()};
        measure_device(engine, plan, device);
        result.devices.push_back(std::move(device));
    }
    for (int a = 0; a < count; ++a) {
        for (int b = 0; b < count; ++b) {
            if (a == b) {
                continue;
            }
            PairBandwidth pair{.src = plan.gpus[static_cast<std::size_t>(a)],
                               .dst = plan.gpus[static_cast<std::size_t>(b)],
                               .path = engine.path(a, b)};
            measure_pair(engine, plan, pair, a, b);
            result.pairs.push_back(std::move(pair));
        }
    }
    return result;
}

int bench_exit_status(const BenchResult& result) {
    const bool slower = std::any_of(result.pairs.begin(), result.pairs.end(), [](const auto& p) {
        return p.p2p_slower_than_staged();
    });
    if (slower) {
        return 1;
    }
    const bool measured_pair = std::any_of(
        result.pairs.begin(), result.pairs.end(), [](const auto& p) { return p.p2p.has_value(); });
    const bool measured_device =
        std::any_of(result.devices.begin(), result.devices.end(), [](const auto& d) {
            return d.device_local.has_value();
        });
    return measured_pair || measured_device ? 0 : 2;
}

}  // namespace peergate::engine
