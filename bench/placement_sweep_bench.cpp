// SPDX-License-Identifier: Apache-2.0
// "Exact within 1 s for n <= 32 on any topology", checked on many topologies rather than a
// few: for each label mix, n and K, ten random topologies (seeds 1..10) are placed once each
// per iteration; the counters give the slowest solve, how many were proven exact, and the
// most search nodes any of them used.
//
//   cmake --preset bench && cmake --build build/bench --target peergate_placement_sweep_bench
//   build/bench/bench/peergate_placement_sweep_bench --benchmark_filter=BM_PlaceSweep
//   build/bench/bench/peergate_placement_sweep_bench --benchmark_filter=BM_RegroupStart
//   build/bench/bench/peergate_placement_sweep_bench --benchmark_filter=BM_PlaceMeasured
//
// Mixes: `dense_nvlink` (NV1..NV18 on 18 of 23 pairs, else PIX..SYS: the hardest, since
// almost every pair is usable and weights barely differ), `sparse_nvlink` (NV1..NV4 on 30 %
// of pairs), `pcie` (PIX..SYS drawn per pair), `two_level` (NV2 or SYS: balanced graph
// partitioning in disguise), `degraded_nvswitch` (NV18, some pairs NV12 or SYS),
// `pcie_tree` (a switch tree with random fan-out and a few NVLink-bridged pairs) and
// `grace_nvswitch` (NV18 with 5 % of pairs NV12, a NUMA node per two GPUs as on GB200
// trays, where one Grace CPU serves two GPUs).
#include "policy/placement/bounds.hpp"
#include "policy/placement/exact.hpp"
#include "policy/placement/heuristic.hpp"
#include "policy/placement/placement.hpp"
#include "policy/placement/regroup.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

namespace {

using peergate::model::Gpu;
using peergate::model::LinkKind;
using peergate::model::LinkLabel;
using peergate::model::Topology;

enum Mix : int {
    dense_nvlink,
    sparse_nvlink,
    pcie,
    two_level,
    degraded_nvswitch,
    pcie_tree,
    grace_nvswitch
};

constexpr const char* kMixNames[] = {"dense_nvlink",
                                     "sparse_nvlink",
                                     "pcie",
                                     "two_level",
                                     "degraded_nvswitch",
                                     "pcie_tree",
                                     "grace_nvswitch"};

// Every mix, as the benchmarks' first argument.
const std::vector<std::int64_t> kAllMixes{
    dense_nvlink, sparse_nvlink, pcie, two_level, degraded_nvswitch, pcie_tree, grace_nvswitch};

LinkLabel draw(Mix mix, std::mt19937& rng) {
    const auto pcie_kind = [&rng] {
        return LinkLabel::of(static_cast<LinkKind>(std::uniform_int_distribution<int>(2, 6)(rng)));
    };
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    switch (mix) {
        case dense_nvlink: {
            const int drawn = std::uniform_int_distribution<int>(0, 22)(rng);
            return drawn < 18 ? LinkLabel::nvlink(drawn + 1)
                              : LinkLabel::of(static_cast<LinkKind>(drawn - 16));
        }
        case sparse_nvlink:
            return unit(rng) < 0.3
                       ? LinkLabel::nvlink(std::uniform_int_distribution<int>(1, 4)(rng))
                       : pcie_kind();
        case pcie:
            return pcie_kind();
        case two_level:
            return unit(rng) < 0.5 ? LinkLabel::nvlink(2) : LinkLabel::of(LinkKind::sys);
        case degraded_nvswitch: {
            const double drawn = unit(rng);
            return drawn < 0.9    ? LinkLabel::nvlink(18)
                   : drawn < 0.97 ? LinkLabel::nvlink(12)
                                  : LinkLabel::of(LinkKind::sys);
        }
        case grace_nvswitch:
            return unit(rng) < 0.05 ? LinkLabel::nvlink(12) : LinkLabel::nvlink(18);
        case pcie_tree:
            break;  // drawn per GPU in make_tree
    }
    return pcie_kind();
}

// A PCIe tree with random fan-out: each GPU under one of n/3 switches, switches under four
// host bridges, bridges on two NUMA nodes; a quarter of the GPUs bridged in pairs (NV4).
LinkLabel tree_label(const std::vector<int>& switch_of, int a, int b) {
    const int sa = switch_of[static_cast<std::size_t>(a)];
    const int sb = switch_of[static_cast<std::size_t>(b)];
    const LinkKind kind = sa == sb           ? LinkKind::pix
                          : sa % 4 == sb % 4 ? LinkKind::pxb
                          : sa % 2 == sb % 2 ? LinkKind::node
                                             : LinkKind::sys;
    return LinkLabel::of(kind);
}

Topology make_tree(Topology t, std::mt19937& rng) {
    const int n = static_cast<int>(t.gpus.size());
    std::vector<int> switch_of;
    for (int a = 0; a < n; ++a) {
        switch_of.push_back(std::uniform_int_distribution<int>(0, n / 3 - 1)(rng));
        t.gpus[static_cast<std::size_t>(a)].numa_node = switch_of.back() % 2;
    }
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const bool bridged = a % 2 == 0 && b == a + 1 && a < n / 4;
            t.matrix[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] =
                t.matrix[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] =
                    bridged ? LinkLabel::nvlink(4) : tree_label(switch_of, a, b);
        }
    }
    return t;
}

Topology make(Mix mix, int n, unsigned seed) {
    std::mt19937 rng(seed * 104729U + static_cast<unsigned>(n) * 31U + static_cast<unsigned>(mix));
    Topology t;
    const auto size = static_cast<std::size_t>(n);
    t.matrix.assign(size, std::vector<LinkLabel>(size, LinkLabel::self()));
    for (int a = 0; a < n; ++a) {
        const int drawn = std::uniform_int_distribution<int>(0, 1)(rng);
        t.gpus.push_back(Gpu{.index = a, .numa_node = mix == grace_nvswitch ? a / 2 : drawn});
    }
    if (mix == pcie_tree) {
        return make_tree(std::move(t), rng);
    }
    for (std::size_t a = 0; a < size; ++a) {
        for (std::size_t b = a + 1; b < size; ++b) {
            t.matrix[a][b] = t.matrix[b][a] = draw(mix, rng);
        }
    }
    return t;
}

// One placement of the cells: a topology and what is asked of it.
struct Solve {
    const Topology* topology = nullptr;
    peergate::policy::placement::PlacementRequest request;
};

// How far an unproven answer may be from the best on its first open term, in percent of the
// bound (of the answer's, for NUMA spans; 100 where nothing bounds the term; 0 when exact
// or only the tie-break is open).
double open_gap_pct(const peergate::policy::placement::PlacementResult& placed) {
    using peergate::policy::placement::kUnlimited;
    const auto open = peergate::policy::placement::open_term(placed);
    const auto pct = [](peergate::policy::placement::Weight got,
                        peergate::policy::placement::Weight most) {
        return most == kUnlimited || most <= 0
                   ? 100.0
                   : 100.0 * static_cast<double>(most - got) / static_cast<double>(most);
    };
    if (!open || *open == "tie_break") {
        return 0.0;
    }
    if (*open == "numa_spans") {  // minimised: the found spans over the fewest possible
        const int found = placed.objective.numa_spans;
        return found <= 0 ? 0.0 : 100.0 * (found - placed.bound.numa_spans) / found;
    }
    if (*open == "min_bottleneck") {
        return pct(placed.objective.min_bottleneck, placed.bound.min_bottleneck);
    }
    return *open == "sum_bottleneck"
               ? pct(placed.objective.sum_bottleneck, placed.bound.sum_bottleneck)
               : pct(placed.objective.sum_pair_weight, placed.bound.sum_pair_weight);
}

// Places every solve once per iteration; the counters give the slowest solve, how many
// were proven exact, the most search nodes any of them used, and the widest proven gap of
// an unproven answer (open_gap_pct).
void place_each(benchmark::State& state, const std::vector<Solve>& solves) {
    double slowest_ms = 0;
    double widest_gap_pct = 0;
    int exact = 0;
    std::uint64_t most_nodes = 0;
    for (auto _ : state) {
        exact = 0;
        for (const auto& solve : solves) {
            const auto start = std::chrono::steady_clock::now();
            const auto placed = peergate::policy::placement::place(*solve.topology, solve.request);
            const std::chrono::duration<double, std::milli> took =
                std::chrono::steady_clock::now() - start;
            if (!placed) {
                state.SkipWithError(placed.error().message.c_str());
                return;
            }
            slowest_ms = std::max(slowest_ms, took.count());
            exact += placed->exact ? 1 : 0;
            most_nodes = std::max(most_nodes, placed->nodes);
            widest_gap_pct = std::max(widest_gap_pct, open_gap_pct(*placed));
        }
    }
    state.counters["slowest_ms"] = slowest_ms;
    state.counters["exact_of_10"] = exact;
    state.counters["most_nodes"] = static_cast<double>(most_nodes);
    state.counters["widest_gap_pct"] = widest_gap_pct;
}

void BM_PlaceSweep(benchmark::State& state) {
    const auto mix = static_cast<Mix>(state.range(0));
    const int n = static_cast<int>(state.range(1));
    const int k = static_cast<int>(state.range(2));
    constexpr unsigned kSeeds = 10;
    std::vector<Topology> topologies;
    for (unsigned seed = 1; seed <= kSeeds; ++seed) {
        topologies.push_back(make(mix, n, seed));
    }
    std::vector<Solve> solves;
    for (const auto& topology : topologies) {
        solves.push_back({.topology = &topology, .request = {.size = k}});
    }
    place_each(state, solves);
    state.SetLabel(kMixNames[mix]);
}

BENCHMARK(BM_PlaceSweep)
    ->ArgsProduct({kAllMixes, {24, 32}, {2, 3, 4, 6, 8, 12, 16}})
    ->ArgNames({"mix", "n", "K"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// Measured weights (`place --bandwidth`): an NVSwitch box of n GPUs whose bench file gives
// every ordered pair 390 GB/s plus Gaussian noise of `noise` GB/s (the slower direction
// counts), NUMA split in halves. Every pair differs, so the link-label levels are gone and
// the searches walk partners one by one.
peergate::policy::placement::PlacementRequest measured_request(int n,
                                                               int k,
                                                               double noise,
                                                               unsigned seed) {
    std::mt19937 rng(seed * 7919U + static_cast<unsigned>(n));
    std::normal_distribution<double> jitter(0.0, noise);
    peergate::policy::placement::PlacementRequest request{.size = k};
    request.bandwidth.emplace();
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            if (a != b) {
                request.bandwidth->push_back({.src = a, .dst = b, .gbps = 390.0 + jitter(rng)});
            }
        }
    }
    return request;
}

void BM_PlaceMeasured(benchmark::State& state) {
    const int n = static_cast<int>(state.range(0));
    const int k = static_cast<int>(state.range(1));
    const auto noise = static_cast<double>(state.range(2));
    Topology t;
    t.matrix.assign(static_cast<std::size_t>(n),
                    std::vector<LinkLabel>(static_cast<std::size_t>(n), LinkLabel::nvlink(18)));
    for (int a = 0; a < n; ++a) {
        t.matrix[static_cast<std::size_t>(a)][static_cast<std::size_t>(a)] = LinkLabel::self();
        t.gpus.push_back(Gpu{.index = a, .numa_node = a < n / 2 ? 0 : 1});
    }
    std::vector<Solve> solves;
    for (unsigned seed = 1; seed <= 10; ++seed) {
        solves.push_back({.topology = &t, .request = measured_request(n, k, noise, seed)});
    }
    place_each(state, solves);
}

BENCHMARK(BM_PlaceMeasured)
    ->ArgsProduct({{16, 24, 32}, {2, 4, 8}, {1, 5, 30}})
    ->ArgNames({"n", "K", "noise_gbps"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// Re-splitting groups (placement_regroup) against its baseline, the heuristic's greedy
// start and swaps, on the same ten topologies per cell: how many answers it improves, and
// its time as a ratio of the heuristic's. With the share place() gives it: the whole
// re-split share at n <= 32 (where it prepares the exact search's start), half past that.
void BM_RegroupStart(benchmark::State& state) {
    namespace pl = peergate::policy::placement;
    const auto mix = static_cast<Mix>(state.range(0));
    const int n = static_cast<int>(state.range(1));
    const int k = static_cast<int>(state.range(2));
    const auto whole =
        pl::regroup_share(peergate::policy::placement::PlacementRequest{}.node_budget);
    const auto share = n <= pl::kExactLimit ? whole : whole / 2;
    using Clock = std::chrono::steady_clock;
    std::chrono::duration<double, std::milli> heuristic{}, regroup{}, slowest{};
    int improved = 0;
    for (auto _ : state) {
        improved = 0;
        for (unsigned seed = 1; seed <= 10; ++seed) {
            const auto problem = pl::build_problem(make(mix, n, seed), {.size = k});
            const auto start = Clock::now();
            auto groups = pl::heuristic_placement(*problem, pl::first_component_bound(*problem));
            const auto swapped = Clock::now();
            const auto before = pl::evaluate(*problem, groups);
            pl::regroup_pairs(*problem, before.min_bottleneck, groups, share);
            const auto done = Clock::now();
            heuristic += swapped - start;
            regroup += done - swapped;
            slowest = std::max<std::chrono::duration<double, std::milli>>(slowest, done - start);
            improved +=
                peergate::policy::placement::better(pl::evaluate(*problem, groups), before) ? 1 : 0;
        }
    }
    state.counters["improved_of_10"] = improved;
    state.counters["regroup_over_heuristic"] = regroup / heuristic;
    state.counters["slowest_ms"] = slowest.count();
    state.SetLabel(kMixNames[mix]);
}

BENCHMARK(BM_RegroupStart)
    ->ArgsProduct({kAllMixes, {32, 64, 128}, {2, 4, 6, 8, 16}})
    ->ArgNames({"mix", "n", "K"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
