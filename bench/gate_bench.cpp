// SPDX-License-Identifier: Apache-2.0
// The cost of one gate decision with the topology already in hand (target < 1 ms), on the
// real 8x B200 `topo -m` fixture (allowed) and on the bridged 4x A100 (vetoed, pinned
// selection, every profile), against a baseline in the same run: copying the parent
// environment, which any launcher that builds a child environment pays anyway.
#include "policy/gate/gate.hpp"
#include "report/gate/render.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "util/atomic_file.hpp"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using namespace peergate;  // NOLINT(google-build-using-namespace)

model::Topology fixture_topology(const char* file, const char* name) {
    const auto text = util::read_file(std::string(PEERGATE_TEST_FIXTURES) + "/topo_m/" + file);
    auto topology = sources::smi::parse_topo_m(text ? *text : std::string());
    if (!topology) {
        return {};
    }
    for (auto& gpu : topology->gpus) {
        gpu.name = name;
    }
    return *topology;
}

// A login shell's worth of variables (~40), as a launcher inherits them.
util::EnvMap parent_environment() {
    util::EnvMap env;
    for (int i = 0; i < 36; ++i) {
        env.set("SOME_VARIABLE_" + std::to_string(i), std::string(48, 'x'));
    }
    env.set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env.set("HOME", "/home/user");
    env.set("GGML_CUDA_P2P", "0");
    env.set("CUDA_VISIBLE_DEVICES", "0,1,2,3");
    return env;
}

policy::gate::GateInput hgx_b200_input() {
    policy::gate::GateInput input;
    input.topology = fixture_topology("unsloth_TOPO_NVLINK_8X.txt", "NVIDIA B200");
    input.env = parent_environment();
    input.env.unset("GGML_CUDA_P2P");
    input.host.iommu = model::IommuMode::identity;
    input.host.hypervisor = false;
    return input;
}

policy::gate::GateInput bridged_input() {
    policy::gate::GateInput input;
    input.topology = fixture_topology("unsloth_TOPO_BRIDGED_4X.txt", "NVIDIA A100-SXM4-80GB");
    input.env = parent_environment();
    input.selection = policy::gate::Selection::list({0, 2});
    input.profile = policy::gate::Profile::all;
    input.host.iommu = model::IommuMode::translating;
    input.host.hypervisor = false;
    return input;
}

void BM_Baseline_CopyParentEnvironment(benchmark::State& state) {
    const auto input = hgx_b200_input();
    for (auto _ : state) {
        util::EnvMap child = input.env;
        benchmark::DoNotOptimize(child);
    }
}

BENCHMARK(BM_Baseline_CopyParentEnvironment);

void BM_Decide_HgxB200Allowed(benchmark::State& state) {
    const auto input = hgx_b200_input();
    for (auto _ : state) {
        auto decision = policy::gate::decide(input);
        benchmark::DoNotOptimize(decision);
    }
}

BENCHMARK(BM_Decide_HgxB200Allowed);

void BM_Decide_BridgedVetoedAllProfiles(benchmark::State& state) {
    const auto input = bridged_input();
    for (auto _ : state) {
        auto decision = policy::gate::decide(input);
        benchmark::DoNotOptimize(decision);
    }
}

BENCHMARK(BM_Decide_BridgedVetoedAllProfiles);

void BM_DecideApplyAndRenderJson_HgxB200(benchmark::State& state) {
    const auto input = hgx_b200_input();
    for (auto _ : state) {
        auto decision = policy::gate::decide(input);
        util::EnvMap child = input.env;
        decision.apply_to(child);
        auto json = report::gate::gate_to_json(decision).dump();
        benchmark::DoNotOptimize(json);
        benchmark::DoNotOptimize(child);
    }
}

BENCHMARK(BM_DecideApplyAndRenderJson_HgxB200);

}  // namespace

BENCHMARK_MAIN();
