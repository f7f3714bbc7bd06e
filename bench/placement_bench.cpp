// SPDX-License-Identifier: Apache-2.0
// `peergate place` solve time for n = 8, 16, 32, 72, 256 GPUs on structured and random
// topologies, with the search nodes explored and, beside them, how many placements a
// whole-partition enumeration (go-gpuallocator's approach) would have to score for the same
// n and K: computed with lgamma, never run.
//
//   cmake --preset bench && cmake --build build/bench --target peergate_placement_bench
//   build/bench/bench/peergate_placement_bench
// BM_EnumerateEveryPartition is the baseline: the whole-partition enumeration, run where it
// can be (n <= 16), on the same topologies and with the same objective.
#include "policy/placement/objective.hpp"
#include "policy/placement/placement.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using peergate::model::Gpu;
using peergate::model::LinkKind;
using peergate::model::LinkLabel;
using peergate::model::Topology;

enum Kind : int { nvswitch, cube_mesh, pcie_tree, random_labels };

Topology blank(int n) {
    Topology t;
    const auto size = static_cast<std::size_t>(n);
    t.matrix.assign(size, std::vector<LinkLabel>(size, LinkLabel::self()));
    for (int i = 0; i < n; ++i) {
        t.gpus.push_back(Gpu{.index = i});
    }
    return t;
}

void link(Topology& t, int a, int b, LinkLabel label) {
    t.matrix[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = label;
    t.matrix[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = label;
}

// Every pair NV18. NUMA: two nodes up to 32 GPUs; an NVL72-like rack has one Grace CPU
// (NUMA node) per two GPUs; the 256-GPU mesh eight nodes.
Topology make_nvswitch(int n) {
    Topology t = blank(n);
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            link(t, a, b, LinkLabel::nvlink(18));
        }
        t.gpus[static_cast<std::size_t>(a)].numa_node = n == 72   ? a / 2
                                                        : n <= 32 ? a / (n / 2)
                                                                  : a / 32;
    }
    return t;
}

// DGX-1 hybrid cube meshes (NV1/NV2 inside each 8-GPU tile, SYS elsewhere), tiled.
Topology make_cube_mesh(int n) {
    static const int kCube[8][8] = {{0, 1, 1, 2, 2, 0, 0, 0},
                                    {1, 0, 2, 1, 0, 2, 0, 0},
                                    {1, 2, 0, 2, 0, 0, 1, 0},
                                    {2, 1, 2, 0, 0, 0, 0, 1},
                                    {2, 0, 0, 0, 0, 1, 1, 2},
                                    {0, 2, 0, 0, 1, 0, 2, 1},
                                    {0, 0, 1, 0, 1, 2, 0, 2},
                                    {0, 0, 0, 1, 2, 1, 2, 0}};
    Topology t = blank(n);
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const int links = a / 8 == b / 8 ? kCube[a % 8][b % 8] : 0;
            link(t, a, b, links > 0 ? LinkLabel::nvlink(links) : LinkLabel::of(LinkKind::sys));
        }
        t.gpus[static_cast<std::size_t>(a)].numa_node = a / 4;
    }
    return t;
}

// PCIe: 4 GPUs per switch (PIX), two switches per host bridge (PXB), bridges within a
// NUMA node (NODE), two NUMA nodes (SYS).
Topology make_pcie_tree(int n) {
    Topology t = blank(n);
    const int per_node = std::max(8, n / 2);
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const LinkKind kind = a / 4 == b / 4                 ? LinkKind::pix
                                  : a / 8 == b / 8               ? LinkKind::pxb
                                  : a / per_node == b / per_node ? LinkKind::node
                                                                 : LinkKind::sys;
            link(t, a, b, LinkLabel::of(kind));
        }
        t.gpus[static_cast<std::size_t>(a)].numa_node = a / per_node;
    }
    return t;
}

Topology make_random(int n) {
    std::mt19937 rng(static_cast<unsigned>(n) * 7919U);
    std::uniform_int_distribution<int> label(0, 22);
    std::uniform_int_distribution<int> node(0, 1);
    Topology t = blank(n);
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const int drawn = label(rng);
            link(t,
                 a,
                 b,
                 drawn < 18 ? LinkLabel::nvlink(drawn + 1)
                            : LinkLabel::of(static_cast<LinkKind>(drawn - 16)));
        }
        t.gpus[static_cast<std::size_t>(a)].numa_node = node(rng);
    }
    return t;
}

Topology make(Kind kind, int n) {
    switch (kind) {
        case nvswitch:
            return make_nvswitch(n);
        case cube_mesh:
            return make_cube_mesh(n);
        case pcie_tree:
            return make_pcie_tree(n);
        case random_labels:
            return make_random(n);
    }
    return make_random(n);
}

// log10 of the placements of G groups of K among n: C(n, GK) (GK)! / (K!^G G!).
double log10_placements(int n, int k) {
    const int g = n / k;
    const auto lf = [](int x) { return std::lgamma(static_cast<double>(x) + 1.0); };
    const double ln = lf(n) - lf(n - g * k) - g * lf(k) - lf(g);
    return ln / std::log(10.0);
}

void BM_Place(benchmark::State& state) {
    const auto kind = static_cast<Kind>(state.range(0));
    const int n = static_cast<int>(state.range(1));
    const int k = static_cast<int>(state.range(2));
    const Topology topology = make(kind, n);
    peergate::policy::placement::PlacementResult result;
    for (auto _ : state) {
        auto placed = peergate::policy::placement::place(topology, {.size = k});
        if (!placed) {
            state.SkipWithError(placed.error().message.c_str());
            return;
        }
        result = std::move(*placed);
        benchmark::DoNotOptimize(result);
    }
    const double log10_count = log10_placements(n, k);
    state.counters["nodes"] = static_cast<double>(result.nodes);
    state.counters["exact"] = result.exact ? 1 : 0;
    state.counters["gap"] = static_cast<double>(result.gap);
    state.counters["min_bottleneck"] = static_cast<double>(result.objective.min_bottleneck);
    state.counters["log10_partitions"] = log10_count;
    state.counters["partitions"] =
        log10_count < 300 ? std::round(std::pow(10.0, log10_count)) : HUGE_VAL;
    static const char* const kNames[] = {"nvswitch", "cube_mesh", "pcie_tree", "random"};
    state.SetLabel(std::string(kNames[kind]) + " method=" + std::string(to_string(result.method)));
}

void Arguments(benchmark::internal::Benchmark* b) {
    for (int kind = nvswitch; kind <= random_labels; ++kind) {
        for (int n : {8, 16, 32, 72, 256}) {
            for (int k : {2, 4, 8, 16}) {
                b->Args({kind, n, k});
            }
        }
    }
}

// The baseline: what a whole-partition enumeration does, run for the sizes where it can be:
// visit every placement of G groups of K and score it with the same objective.
struct Enumeration {
    const peergate::policy::placement::Problem& problem;
    std::vector<std::vector<int>> groups;
    std::vector<char> used;
    peergate::policy::placement::PlacementObjective best{.min_bottleneck = -1};
    std::uint64_t scored = 0;

    void fill(std::vector<int>& group, int from) {
        if (static_cast<int>(group.size()) == problem.k) {
            groups.push_back(group);
            next(group.front());
            groups.pop_back();
            return;
        }
        for (int v = from; v < problem.n; ++v) {
            if (!used[static_cast<std::size_t>(v)]) {
                used[static_cast<std::size_t>(v)] = 1;
                group.push_back(v);
                fill(group, v + 1);
                group.pop_back();
                used[static_cast<std::size_t>(v)] = 0;
            }
        }
    }

    void next(int previous_first) {
        if (static_cast<int>(groups.size()) == problem.g) {
            ++scored;
            const auto objective = peergate::policy::placement::evaluate(problem, groups);
            best = peergate::policy::placement::better(objective, best) ? objective : best;
            return;
        }
        for (int v = groups.empty() ? 0 : previous_first + 1; v < problem.n; ++v) {
            if (!used[static_cast<std::size_t>(v)]) {
                used[static_cast<std::size_t>(v)] = 1;
                std::vector<int> group{v};
                fill(group, v + 1);
                used[static_cast<std::size_t>(v)] = 0;
            }
        }
    }
};

void BM_EnumerateEveryPartition(benchmark::State& state) {
    const auto kind = static_cast<Kind>(state.range(0));
    const int n = static_cast<int>(state.range(1));
    const int k = static_cast<int>(state.range(2));
    const Topology topology = make(kind, n);
    const auto problem = *peergate::policy::placement::build_problem(topology, {.size = k});
    std::uint64_t scored = 0;
    for (auto _ : state) {
        Enumeration e{problem, {}, std::vector<char>(static_cast<std::size_t>(n), 0)};
        e.next(0);
        scored = e.scored;
        benchmark::DoNotOptimize(e.best);
    }
    state.counters["partitions"] = static_cast<double>(scored);
    static const char* const kNames[] = {"nvswitch", "cube_mesh", "pcie_tree", "random"};
    state.SetLabel(kNames[kind]);
}

BENCHMARK(BM_EnumerateEveryPartition)
    ->ArgsProduct({{cube_mesh, random_labels}, {8, 16}, {2, 4}})
    ->ArgNames({"kind", "n", "K"})
    ->Unit(benchmark::kMillisecond);

// Wall time: the exact solver's last stage runs its two searches on two threads.
BENCHMARK(BM_Place)
    ->Apply(Arguments)
    ->ArgNames({"kind", "n", "K"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
