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

// A NIC column of the file: its header name, the RDMA device (the NIC Legend's name, or the
// header's where it is the device; "" where neither says) and its label to each GPU.
struct NicTruth {
    std::string name;
    std::string device;
    std::vector<std::string> paths;
};

struct TopoMTruth {
    std::string file;
    bool readable = true;
    TokenGrid matrix;                       // matrix[p][q] as nvidia-smi prints it
    std::vector<std::vector<int>> islands;  // NVLink islands, singletons included
    std::vector<std::optional<int>> numa;   // per GPU; nullopt for N/A or no column
    std::vector<std::string> cpu_affinity;  // per GPU; "" when not printed
    std::vector<NicTruth> nics;             // in column order; none where no NIC column
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
// "NIC<k>" for k in [first, first + devices.size()), named devices[k - first].
inline std::vector<NicTruth> numbered_nics(const std::vector<std::string>& devices,
                                           const std::vector<std::vector<std::string>>& paths) {
    std::vector<NicTruth> out;
    for (std::size_t k = 0; k < paths.size(); ++k) {
        out.push_back({"NIC" + std::to_string(k), k < devices.size() ? devices[k] : "", paths[k]});
    }
    return out;
}

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
         .cpu_affinity = halves<std::string>(4, "0-47,96-143", "48-95,144-191"),
         // No NIC Legend in the file: the devices are unknown.
         .nics = numbered_nics({},
                               {{"SYS", "SYS", "SYS", "SYS", "PIX", "PIX", "NODE", "NODE"},
                                {"SYS", "SYS", "SYS", "SYS", "PIX", "PIX", "NODE", "NODE"}})},
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
         .cpu_affinity = halves<std::string>(4, "0-19,40-59", "20-39,60-79"),
         .nics = {{"mlx5_0", "mlx5_0", {"PIX", "PIX", "PHB", "PHB", "SYS", "SYS", "SYS", "SYS"}},
                  {"mlx5_1", "mlx5_1", {"PHB", "PHB", "PIX", "PIX", "SYS", "SYS", "SYS", "SYS"}},
                  {"mlx5_2", "mlx5_2", {"SYS", "SYS", "SYS", "SYS", "PIX", "PIX", "PHB", "PHB"}},
                  {"mlx5_3", "mlx5_3", {"SYS", "SYS", "SYS", "SYS", "PHB", "PHB", "PIX", "PIX"}}}},
        {.file = "SYSuEST_2xA100_mlx5_numa_nic_row.txt",
         .matrix = uniform_grid(2, "NODE"),
         .islands = {{0}, {1}},
         .numa = {1, 1},
         .cpu_affinity = {"32-63", "32-63"},
         .nics = {{"mlx5_0", "mlx5_0", {"NODE", "NODE"}}}},
        {.file = "SYSuEST_4xV100_NV2_NV1_mlx5_nic_rows.txt",
         .matrix = {{"X", "NV2", "NV1", "NODE"},
                    {"NV2", "X", "NODE", "NV2"},
                    {"NV1", "NODE", "X", "NV2"},
                    {"NODE", "NV2", "NV2", "X"}},
         .islands = {{0, 1, 2, 3}},
         .numa = {none, none, none, none},
         .cpu_affinity = {"14-27", "14-27", "14-27", "14-27"},
         .nics = {{"mlx5_0", "mlx5_0", {"PIX", "PIX", "NODE", "NODE"}},
                  {"mlx5_1", "mlx5_1", {"PIX", "PIX", "NODE", "NODE"}},
                  {"mlx5_2", "mlx5_2", {"NODE", "NODE", "PIX", "PIX"}},
                  {"mlx5_3", "mlx5_3", {"NODE", "NODE", "PIX", "PIX"}}}},
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
        // Issue 33's second round (tests/fixtures/README.md): NIC Legend blocks, PCIe-only
        // workstations, bridged pairs, GPU NUMA ID columns, cut legends.
        {.file = "sglang-30401_8xH100_NV18_mlx5x8_nic_legend_gpu_numa_id.txt",
         .matrix = uniform_grid(8, "NV18"),
         .islands = {all8},
         .numa = halves<std::optional<int>>(4, 0, 1),
         .cpu_affinity = halves<std::string>(4, "0-47,96-143", "48-95,144-191"),
         .nics = numbered_nics(
             {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"},
             {{"PIX", "NODE", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS"},
              {"NODE", "PIX", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS"},
              {"NODE", "NODE", "PIX", "NODE", "SYS", "SYS", "SYS", "SYS"},
              {"NODE", "NODE", "NODE", "PIX", "SYS", "SYS", "SYS", "SYS"},
              {"SYS", "SYS", "SYS", "SYS", "PIX", "NODE", "NODE", "NODE"},
              {"SYS", "SYS", "SYS", "SYS", "NODE", "PIX", "NODE", "NODE"},
              {"SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "PIX", "NODE"},
              {"SYS", "SYS", "SYS", "SYS", "NODE", "NODE", "NODE", "PIX"}})},
        {.file = "stelline-asus-esc8000a-e12_4xRTX6000Ada_NODE_SYS_mlx5x4_nic_legend.txt",
         .matrix = {{"X", "NODE", "SYS", "SYS"},
                    {"NODE", "X", "SYS", "SYS"},
                    {"SYS", "SYS", "X", "NODE"},
                    {"SYS", "SYS", "NODE", "X"}},
         .islands = {{0}, {1}, {2}, {3}},
         .numa = {0, 0, 1, 1},
         .cpu_affinity = halves<std::string>(2, "0-31", "32-63"),
         .nics = numbered_nics({"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"},
                               {{"NODE", "NODE", "SYS", "SYS"},
                                {"NODE", "NODE", "SYS", "SYS"},
                                {"SYS", "SYS", "NODE", "NODE"},
                                {"SYS", "SYS", "NODE", "NODE"}})},
        // One GPU in a KVM guest with a NIC: still no pair, so no matrix.
        {.file = "sglang-24413_1xH100PCIe_PHB_mlx5_0_nic_legend_kvm.txt",
         .readable = false,
         .reason_contains = "no header line with at least two GPU columns"},
        {.file = "gpu-compress-decompress-docs_8xA100class_NV12_mlx5x10_numa8_nic_legend.txt",
         .matrix = uniform_grid(8, "NV12"),
         .islands = {all8},
         .numa = {3, 3, 1, 1, 7, 7, 5, 5},
         .cpu_affinity = {"48-63,176-191",
                          "48-63,176-191",
                          "16-31,144-159",
                          "16-31,144-159",
                          "112-127,240-255",
                          "112-127,240-255",
                          "80-95,208-223",
                          "80-95,208-223"},
         .nics = numbered_nics({"mlx5_0",
                                "mlx5_1",
                                "mlx5_2",
                                "mlx5_3",
                                "mlx5_4",
                                "mlx5_5",
                                "mlx5_6",
                                "mlx5_7",
                                "mlx5_8",
                                "mlx5_9"},
                               {{"PXB", "PXB", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
                                {"PXB", "PXB", "SYS", "SYS", "SYS", "SYS", "SYS", "SYS"},
                                {"SYS", "SYS", "PXB", "PXB", "SYS", "SYS", "SYS", "SYS"},
                                {"SYS", "SYS", "PXB", "PXB", "SYS", "SYS", "SYS", "SYS"},
                                {"SYS", "SYS", "SYS", "SYS", "PXB", "PXB", "SYS", "SYS"},
                                {"SYS", "SYS", "SYS", "SYS", "PXB", "PXB", "SYS", "SYS"},
                                {"SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "PXB", "PXB"},
                                {"SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "PXB", "PXB"},
                                std::vector<std::string>(8, "SYS"),
                                std::vector<std::string>(8, "SYS")})},
        {.file = "club-3090-46_5xRTX4090_SYS_PHB_NODE_gpu_numa_id.txt",
         .matrix = {{"X", "SYS", "SYS", "SYS", "SYS"},
                    {"SYS", "X", "PHB", "NODE", "NODE"},
                    {"SYS", "PHB", "X", "NODE", "NODE"},
                    {"SYS", "NODE", "NODE", "X", "PHB"},
                    {"SYS", "NODE", "NODE", "PHB", "X"}},
         .islands = {{0}, {1}, {2}, {3}, {4}},
         .numa = {1, 0, 0, 0, 0},
         .cpu_affinity = {"8-15,24-31", "0-7,16-23", "0-7,16-23", "0-7,16-23", "0-7,16-23"}},
        // No legend in the post: NIC0 and NIC1 are columns without a device.
        {.file = "go-gpuallocator-17_8xRTX4090_SYS_PHB_2nic_no_legend.txt",
         .matrix = uniform_grid(8, "SYS"),
         .islands = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}},
         .numa = halves<std::optional<int>>(4, 0, 1),
         .cpu_affinity = halves<std::string>(4, "0-55,112-167", "56-111,168-223"),
         .nics = numbered_nics({},
                               {{"SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "PHB", "SYS"},
                                {"SYS", "SYS", "SYS", "SYS", "SYS", "SYS", "PHB", "SYS"}})},
        {.file = "aikitoria-ogkm-pr18_4xRTX3090_NV4_pairs_PHB_NODE.txt",
         .matrix = {{"X", "PHB", "NV4", "NODE"},
                    {"PHB", "X", "NODE", "NV4"},
                    {"NV4", "NODE", "X", "PHB"},
                    {"NODE", "NV4", "PHB", "X"}},
         .islands = {{0, 2}, {1, 3}},
         .numa = {0, 0, 0, 0},
         .cpu_affinity = {"0-23", "0-23", "0-23", "0-23"}},
        {.file = "aikitoria-ogkm-13_5xGPU_NODE_PHB_tabs_prompt.txt",
         .matrix = {{"X", "NODE", "NODE", "NODE", "NODE"},
                    {"NODE", "X", "NODE", "NODE", "NODE"},
                    {"NODE", "NODE", "X", "NODE", "NODE"},
                    {"NODE", "NODE", "NODE", "X", "PHB"},
                    {"NODE", "NODE", "NODE", "PHB", "X"}},
         .islands = {{0}, {1}, {2}, {3}, {4}},
         .numa = {0, 0, 0, 0, 0},
         .cpu_affinity = std::vector<std::string>(5, "0-63")},
        {.file = "cuda-samples-284_2xL4_SYS_numa0_numa2_no_legend.txt",
         .matrix = uniform_grid(2, "SYS"),
         .islands = {{0}, {1}},
         .numa = {0, 2},
         .cpu_affinity = {"0-7,32-39", "16-23,48-55"}},
        {.file = "nccl-1608_3xH100NVL_NV12_pair_SYS_no_legend.txt",
         .matrix = {{"X", "NV12", "SYS"}, {"NV12", "X", "SYS"}, {"SYS", "SYS", "X"}},
         .islands = {{0, 1}, {2}},
         .numa = {0, 0, 1},
         .cpu_affinity = {"0-15,32-47", "0-15,32-47", "16-31,48-63"}},
        // Cut inside the GPU legend, before any NIC Legend: the matrix and NIC rows are whole,
        // the devices unknown (as in a paste that leaves the legend out).
        {.file = "nccl-1617_4xH100_NV6_4nic_sparse_cpus_excerpt_cut.txt",
         .matrix = uniform_grid(4, "NV6"),
         .islands = {{0, 1, 2, 3}},
         .numa = {3, 1, 7, 5},
         .cpu_affinity = {"6,14,22,30", "4,12,20,28", "7,15,23,31", "5,13,21,29"},
         .nics = numbered_nics({},
                               {{"PIX", "SYS", "SYS", "SYS"},
                                {"SYS", "PIX", "SYS", "SYS"},
                                {"SYS", "SYS", "PIX", "SYS"},
                                {"SYS", "SYS", "SYS", "PIX"}})},
        // GPU0's NUMA Affinity cell is N/A (a tab further right than GPU1's 1): unknown, never 0.
        {.file = "club-3090-178_2xRTX3090_SYS_numa_NA_cell_excerpt_cut.txt",
         .matrix = uniform_grid(2, "SYS"),
         .islands = {{0}, {1}},
         .numa = {none, 1},
         .cpu_affinity = {"0-7,16-23", "8-15,24-31"}},
    };
}

}  // namespace peergate::test
