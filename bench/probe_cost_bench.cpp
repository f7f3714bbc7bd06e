// SPDX-License-Identifier: Apache-2.0
// What the integrity probe itself costs, on the simulated CUDA driver (the real dlopen
// path): in host mode, the CPU time to verify N bytes against a plain memcpy of the same
// N bytes in the same run; in device mode, the host bytes moved per cell.
//   cmake --preset bench && cmake --build build/bench --target peergate_probe_cost_bench
//   peergate_sim_cuda build/bench/bench/peergate_probe_cost_bench
#include "engine/probe_runner.hpp"
#include "pipeline/simulate.hpp"
#include "sources/cuda/cuda_copy_engine.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using namespace peergate;  // NOLINT: a benchmark file

std::shared_ptr<sources::cuda::CudaDriver> sim_driver() {
    static std::shared_ptr<sources::cuda::CudaDriver> driver = [] {
        ::setenv("PEERGATE_SIM_MACHINE",
                 PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json",
                 1);  // NOLINT
        auto opened =
            sources::cuda::open_cuda_driver(pipeline::locate_simulation_parts().cuda_library, "");
        return opened ? *opened : nullptr;
    }();
    return driver;
}

std::unique_ptr<sources::cuda::CudaCopyEngine> open_engine(model::VerifySite site) {
    auto driver = sim_driver();
    if (!driver) {
        return nullptr;
    }
    auto engine = sources::cuda::CudaCopyEngine::open(driver, {.ordinals = {0, 1}, .verify = site});
    return engine ? std::move(*engine) : nullptr;
}

// The baseline: copying the bytes once.
void BM_PlainMemcpy(benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(state.range(0));
    std::vector<std::uint8_t> from(bytes, 1);
    std::vector<std::uint8_t> to(bytes, 0);
    for (auto _ : state) {
        std::memcpy(to.data(), from.data(), bytes);
        benchmark::DoNotOptimize(to.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

// The probe's own work per byte in host mode: compare with the pattern (no copy).
void BM_PatternCompare(benchmark::State& state) {
    std::vector<std::uint32_t> data(static_cast<std::size_t>(state.range(0)) / 4);
    engine::fill_pattern(data, 7);
    for (auto _ : state) {
        benchmark::DoNotOptimize(engine::verify_pattern(data, 7));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

// A whole host-mode verify through the engine: copy back (the simulated driver's memcpy
// stands in for the DMA) plus the compare.
void BM_EngineHostVerify(benchmark::State& state) {
    auto engine = open_engine(model::VerifySite::host);
    if (!engine) {
        state.SkipWithError("the simulated CUDA driver did not load");
        return;
    }
    const auto bytes = static_cast<std::size_t>(state.range(0));
    auto buffer = engine->allocate(1, bytes);
    auto stream = engine->create_stream(1);
    if (!buffer || !stream || !engine->fill_pattern(*buffer, 7, *stream)) {
        state.SkipWithError("setup failed");
        return;
    }
    for (auto _ : state) {
        auto counts = engine->verify(*buffer, 7, *stream, std::chrono::seconds(30));
        benchmark::DoNotOptimize(counts);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

// Device mode: host bytes that cross per cell (the three counters of each check).
void BM_DeviceModeCell(benchmark::State& state) {
    auto engine = open_engine(model::VerifySite::device);
    engine::ProbeRequest request;
    request.gpus = {0, 1};
    request.sizes_mib = {state.range(0) >> 20};
    request.repeats = 1;
    auto plan = engine::make_probe_plan(request);
    if (!engine || !plan) {
        state.SkipWithError("setup failed");
        return;
    }
    std::size_t cells = 0;
    for (auto _ : state) {
        cells += engine::run_probe(*engine, *plan).cells.size();
    }
    const auto counters = engine->counters();
    state.counters["host_bytes_per_cell"] =
        static_cast<double>(counters.host_bytes_in + counters.host_bytes_out) /
        static_cast<double>(cells);
    state.SetBytesProcessed(static_cast<std::int64_t>(cells) * state.range(0));
}

constexpr std::int64_t kMiB = 1 << 20;
BENCHMARK(BM_PlainMemcpy)->Arg(kMiB)->Arg(16 * kMiB)->Arg(64 * kMiB);
BENCHMARK(BM_PatternCompare)->Arg(kMiB)->Arg(16 * kMiB)->Arg(64 * kMiB);
BENCHMARK(BM_EngineHostVerify)->Arg(kMiB)->Arg(16 * kMiB)->Arg(64 * kMiB);
BENCHMARK(BM_DeviceModeCell)->Arg(kMiB)->Arg(16 * kMiB);

}  // namespace

BENCHMARK_MAIN();
