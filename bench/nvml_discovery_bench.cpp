// SPDX-License-Identifier: Apache-2.0
// One NVML discovery against one nvidia-smi discovery on a simulated 8-GPU NVSwitch
// machine, and the number of NVML calls one matrix costs. Run through
// bench/nvml_discovery_ratio.sh, which prints the ratio of the two from the same run.
//
// Inputs (environment, set by the script): PEERGATE_SIM_NVML (the simulated library),
// PEERGATE_SIM_MACHINE (the machine file), PEERGATE_BENCH_SMI (an nvidia-smi stand-in)
// and PEERGATE_FAKE_TOPO_M (the topo -m text it prints).
#include "sources/nvml/nvml_tier.hpp"
#include "sources/smi/smi_runner.hpp"
#include "util/env_map.hpp"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

namespace {

using namespace peergate;  // NOLINT(google-build-using-namespace)

std::string required_env(const char* name) {
    const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): bench set-up
    return value != nullptr ? value : "";
}

nvml::NvmlTierOptions nvml_options() {
    nvml::NvmlTierOptions options;
    options.libraries = {required_env("PEERGATE_SIM_NVML")};
    options.host_root = "/nonexistent-host-root";
    return options;
}

// Load, init, every GPU and ordered pair, shutdown, unload: what one `peergate topo` pays.
void BM_NvmlDiscovery(benchmark::State& state) {
    const auto options = nvml_options();
    std::uint64_t calls = 0;
    for (auto _ : state) {
        auto result = nvml::read_nvml_tier(options);
        if (!result.topology) {
            state.SkipWithError(result.topology.error().message.c_str());
            return;
        }
        calls = result.calls;
        benchmark::DoNotOptimize(result);
    }
    state.counters["nvml_calls"] = static_cast<double>(calls);
}

BENCHMARK(BM_NvmlDiscovery)->Unit(benchmark::kMillisecond);

// The same behind the watchdog: adds one thread start and one hand-over.
void BM_NvmlDiscoveryWithWatchdog(benchmark::State& state) {
    const auto options = nvml_options();
    for (auto _ : state) {
        auto result = nvml::run_nvml_tier(options);
        if (!result.topology) {
            state.SkipWithError(result.topology.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(result);
    }
}

BENCHMARK(BM_NvmlDiscoveryWithWatchdog)->Unit(benchmark::kMillisecond);

// What the doctor reads in the same session: the discovery, then every GPU's links again
// with their four error counters each, and the P2P status of every pair for all five caps
// indices. Against BM_NvmlDiscovery, the doctor's cost beyond the gate's.
void BM_NvmlDiscoveryWithRecord(benchmark::State& state) {
    auto options = nvml_options();
    options.with_record = true;
    std::uint64_t calls = 0;
    for (auto _ : state) {
        auto result = nvml::read_nvml_tier(options);
        if (!result.record) {
            state.SkipWithError(result.record.error().message.c_str());
            return;
        }
        calls = result.calls;
        benchmark::DoNotOptimize(result);
    }
    state.counters["nvml_calls"] = static_cast<double>(calls);
}

BENCHMARK(BM_NvmlDiscoveryWithRecord)->Unit(benchmark::kMillisecond);

// Tier 2 on the same machine: topo -m plus the --query-gpu join, two child processes.
void BM_SmiDiscovery(benchmark::State& state) {
    util::EnvMap env;
    env.set("PATH", "/usr/bin:/bin");
    env.set("PEERGATE_FAKE_TOPO_M", required_env("PEERGATE_FAKE_TOPO_M"));
    env.set("PEERGATE_SIM_MACHINE", required_env("PEERGATE_SIM_MACHINE"));
    const std::string smi = required_env("PEERGATE_BENCH_SMI");
    for (auto _ : state) {
        auto topology = sources::smi::smi_topology(smi, env);
        if (!topology) {
            state.SkipWithError(topology.error().message.c_str());
            return;
        }
        benchmark::DoNotOptimize(topology);
    }
}

BENCHMARK(BM_SmiDiscovery)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
