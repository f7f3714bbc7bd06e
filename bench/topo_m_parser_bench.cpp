// SPDX-License-Identifier: Apache-2.0
// Throughput of the `nvidia-smi topo -m` parser on the real 8-GPU fixture and on a
// synthetic 72-GPU matrix (a GB200 NVL72-sized rack seen as one table), each against a
// baseline on the same text: splitting it into lines and whitespace tokens, which any
// reader must do. "parser / tokenizing" is the cost of the rules themselves.
#include "sources/smi/topo_m_parser.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <benchmark/benchmark.h>

#include <string>

namespace {

using peergate::sources::smi::parse_topo_m;

std::string eight_gpu_fixture() {
    auto text = peergate::util::read_file(std::string(PEERGATE_TEST_FIXTURES) +
                                          "/topo_m/unsloth_TOPO_NVLINK_8X.txt");
    return text ? *text : std::string();
}

// nvidia-smi's layout for `gpus` GPUs: tabs, an underlined header, NV18 everywhere, two
// NUMA nodes, and the legend after the matrix.
std::string synthetic_matrix(int gpus) {
    std::string text = "\t\x1b[4m";
    for (int g = 0; g < gpus; ++g) {
        text += "GPU" + std::to_string(g) + "\t";
    }
    text += "CPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n";
    for (int row = 0; row < gpus; ++row) {
        text += "GPU" + std::to_string(row);
        for (int col = 0; col < gpus; ++col) {
            text += row == col ? "\t X " : "\tNV18";
        }
        text += row < gpus / 2 ? "\t0-71\t0\t\tN/A\n" : "\t72-143\t1\t\tN/A\n";
    }
    text +=
        "\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n";
    return text;
}

void set_rates(benchmark::State& state, const std::string& text) {
    const auto iterations = static_cast<std::int64_t>(state.iterations());
    state.SetBytesProcessed(iterations * static_cast<std::int64_t>(text.size()));
    state.SetItemsProcessed(iterations);  // items = whole matrices
}

void run_parser(benchmark::State& state, const std::string& text) {
    for (auto _ : state) {
        auto topology = parse_topo_m(text);
        if (!topology) {
            state.SkipWithError("the benchmark input did not parse");
            break;
        }
        benchmark::DoNotOptimize(topology);
    }
    set_rates(state, text);
}

// The baseline: the same lines and tokens, no rules, no matrix.
void run_tokenizer(benchmark::State& state, const std::string& text) {
    for (auto _ : state) {
        std::size_t tokens = 0;
        for (auto line : peergate::util::split_lines(text)) {
            tokens += peergate::util::split_whitespace(line).size();
        }
        benchmark::DoNotOptimize(tokens);
    }
    set_rates(state, text);
}

void BM_Parse_8Gpu_Fixture(benchmark::State& state) {
    run_parser(state, eight_gpu_fixture());
}

void BM_Tokenize_8Gpu_Fixture(benchmark::State& state) {
    run_tokenizer(state, eight_gpu_fixture());
}

void BM_Parse_72Gpu_Synthetic(benchmark::State& state) {
    run_parser(state, synthetic_matrix(72));
}

void BM_Tokenize_72Gpu_Synthetic(benchmark::State& state) {
    run_tokenizer(state, synthetic_matrix(72));
}

BENCHMARK(BM_Tokenize_8Gpu_Fixture);
BENCHMARK(BM_Parse_8Gpu_Fixture);
BENCHMARK(BM_Tokenize_72Gpu_Synthetic);
BENCHMARK(BM_Parse_72Gpu_Synthetic);

}  // namespace

BENCHMARK_MAIN();
