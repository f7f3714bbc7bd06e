// SPDX-License-Identifier: Apache-2.0
// What a correct reader concludes from each tests/fixtures/topo_m file, written out from
// tests/fixtures/README.md. The parser's unit tests and the `topo --from` end-to-end tests
// both assert against this one table.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace peergate::test {

using TokenGrid = std::vector<std::vector<std::string>>;

struct TopoMTruth {
    std::string file;
    bool readable = true;
    TokenGrid matrix;                       // matrix[p][q] as nvidia-smi prints it
    std::vector<std::vector<int>> islands;  // NVLink islands, singletons included
    std::vector<std::optional<int>> numa;   // per GPU; nullopt for N/A or no column
    std::vector<std::string> cpu_affinity;  // per GPU; "" when not printed
    std::string reason_contains;            // for unreadable files: the failed check
};

// Test names and failure messages show the file, not 168 bytes of hex.
inline void PrintTo(const TopoMTruth& truth, std::ostream* os) {
    *os << truth.file;
}

// X on the diagonal, `token` everywhere else.
inline TokenGrid uniform_grid(std::size_t n, const std::string& token) {
    TokenGrid grid(n, std::vector<std::string>(n, token));
    for (std::size_t p = 0; p < n; ++p) {
        grid[p][p] = "X";
    }
    return grid;
}

// `count` copies of `value`, then `count` of `second`: the two-socket layouts.
template <typename T>
std::vector<T> halves(std::size_t count, const T& value, const T& second) {
    std::vector<T> out(count, value);
    out.insert(out.end(), count, second);
    return out;
}

inline std::vector<TopoMTruth> topo_m_truths() {
    const std::vector<int> all8{0, 1, 2, 3, 4, 5, 6, 7};
    const std::optional<int> none;
    return {
        {.file = "unsloth_TOPO_NVLINK_8X.txt",
         .matrix = uniform_grid(8, "NV18"),
         .islands = {all8},
         .numa = halves<std::optional<int>>(4, 0, 1),
         .cpu_affinity = halves<std::string>(4, "0-47,96-143", "48-95,144-191")},
        {.file = "unsloth_TOPO_PCIE_2X.txt",
         .matrix = uniform_grid(2, "NODE"),
         .islands = {{0}, {1}},
         .numa = {0, 0},
         .cpu_affinity = {"0-23", "0-23"}},
        {.file = "unsloth_TOPO_BRIDGED_4X.txt",
         .matrix = {{"X", "NV12", "SYS", "SYS"},
                    {"NV12", "X", "SYS", "SYS"},
                    {"SYS", "SYS", "X", "NV12"},
                    {"SYS", "SYS", "NV12", "X"}},
         .islands = {{0, 1}, {2, 3}},
         .numa = {0, 0, 1, 1},
         .cpu_affinity = halves<std::string>(2, "0-23", "24-47")},
        {.file = "unsloth_PARTIAL_3X.txt",
         .matrix = {{"X", "NV18", "NODE"}, {"NV18", "X", "NODE"}, {"NODE", "NODE", "X"}},
         .islands = {{0, 1}, {2}},
         .numa = {none, none, none},
         .cpu_affinity = {"0-23", "0-23", "0-23"}},
        {.file = "unsloth_SCRATCH_TWO_ISLANDS_4X.txt",
         .matrix = {{"X", "NV12", "PHB", "PHB"},
                    {"NV12", "X", "PHB", "PHB"},
                    {"PHB", "PHB", "X", "NV12"},
                    {"PHB", "PHB", "NV12", "X"}},
         .islands = {{0, 1}, {2, 3}},
         .numa = {none, none, none, none},
         .cpu_affinity = halves<std::string>(2, "0-23", "24-47")},
        {.file = "unsloth_SCRATCH_ALL_NV_4X.txt",
         .matrix = uniform_grid(4, "NV12"),
         .islands = {{0, 1, 2, 3}},
         .numa = {none, none, none, none},
         .cpu_affinity = halves<std::string>(2, "0-23", "24-47")},
        {.file = "unsloth_TRUNCATED_ROW_2X.txt",
         .readable = false,
         .reason_contains = "row GPU1 has 1 labels for 2 GPU columns (truncated)"},
        {.file = "unsloth_ROW_TRUNCATED_8X.txt",
         .readable = false,
         .reason_contains = "missing row for GPU4"},
        {.file = "unsloth_LEGEND_ONLY.txt",
         .readable = false,
         .reason_contains = "no header line with at least two GPU columns"},
        // One GPU: its header and its row both start with a run of one GPU token, so the
        // spec's header rule (two or more) finds none. NVML describes such a machine.
        {.file = "peergate-device_1xH200_firecracker.txt",
         .readable = false,
         .reason_contains = "no header line with at least two GPU columns"},
        {.file = "ml-engineering-perf_8xH100_NV18_ht_cpulists.txt",
         .matrix = uniform_grid(8, "NV18"),
         .islands = {all8},
         .numa = halves<std::optional<int>>(4, 0, 1),
         .cpu_affinity = halves<std::string>(4, "0-51,104-155", "52-103,156-207")},
        {.file = "ml-engineering-network_2gpu_NV2_no_legend.txt",
         .matrix = uniform_grid(2, "NV2"),
         .islands = {{0, 1}},
         .numa = {none, none},
         .cpu_affinity = {"0-23", "0-23"}},
        {.file = "ml-engineering-network_2gpu_PHB_no_legend.txt",
         .matrix = uniform_grid(2, "PHB"),
         .islands = {{0}, {1}},
         .numa = {none, none},
         .cpu_affinity = {"0-11", "0-11"}},
        {.file = "ml-engineering-network_8xA100_NV12_compacted.txt",
         .matrix = uniform_grid(8, "NV12"),
         .islands = {all8},
         .numa = halves<std::optional<int>>(4, 0, 1),
         .cpu_affinity = halves<std::string>(4, "0-23", "24-47")},
        {.file = "ml-engineering-network_8xH100_NV18_compacted.txt",
         .matrix = uniform_grid(8, "NV18"),
         .islands = {all8},
         .numa = halves<std::optional<int>>(4, 0, 1),
         .cpu_affinity = halves<std::string>(4, "0-51", "52-103")},
        // NIC columns named by RDMA device (mlx5_N, mlx4_N) instead of NIC<n>, with NIC rows
        // under the GPU rows: the affinity sits after the NIC cells, not in the first of them.
        {.file = "rapidsai-ucx-py_8xV100_DGX1_mlx5_nic_rows.txt",
         .matrix = {{"X", "NV1", "NV1", "NV2", "NV2", "SYS", "SYS", "SYS"},
                    {"NV1", "X", "NV2", "NV1", "SYS", "NV2", "SYS", "SYS"},
                    {"NV1", "NV2", "X", "NV2", "SYS", "SYS", "NV1", "SYS"},
                    {"NV2", "NV1", "NV2", "X", "SYS", "SYS", "SYS", "NV1"},
                    {"NV2", "SYS", "SYS", "SYS", "X", "NV1", "NV1", "NV2"},
                    {"SYS", "NV2", "SYS", "SYS", "NV1", "X", "NV2", "NV1"},
                    {"SYS", "SYS", "NV1", "SYS", "NV1", "NV2", "X", "NV2"},
                    {"SYS", "SYS", "SYS", "NV1", "NV2", "NV1", "NV2", "X"}},
         .islands = {all8},
         .numa = std::vector<std::optional<int>>(8, none),
         .cpu_affinity = halves<std::string>(4, "0-19,40-59", "20-39,60-79")},
        {.file = "SYSuEST_2xA100_mlx5_numa_nic_row.txt",
         .matrix = uniform_grid(2, "NODE"),
         .islands = {{0}, {1}},
         .numa = {1, 1},
         .cpu_affinity = {"32-63", "32-63"}},
        {.file = "SYSuEST_4xV100_NV2_NV1_mlx5_nic_rows.txt",
         .matrix = {{"X", "NV2", "NV1", "NODE"},
                    {"NV2", "X", "NODE", "NV2"},
                    {"NV1", "NODE", "X", "NV2"},
                    {"NODE", "NV2", "NV2", "X"}},
         .islands = {{0, 1, 2, 3}},
         .numa = {none, none, none, none},
         .cpu_affinity = {"14-27", "14-27", "14-27", "14-27"}},
        // Issue threads as the stored excerpts hold them: cut inside a GPU row, or after one.
        {.file = "nccl-707_8xA100_NV12_mlx5x18_excerpt_cut.txt",
         .readable = false,
         .reason_contains = "row GPU4 has 17 cells for 28 header columns"},
        {.file = "kubernetes-53497_8gpu_mlx4_0_excerpt_cut.txt",
         .readable = false,
         .reason_contains = "missing row for GPU5"},
        {.file = "nccl-tests-78_16xV100_NV6_mlx5x10_excerpt_cut.txt",
         .readable = false,
         .reason_contains = "missing row for GPU5"},
    };
}

}  // namespace peergate::test
