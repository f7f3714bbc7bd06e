// SPDX-License-Identifier: Apache-2.0
// Pure reader of `nvidia-smi topo -m` (the --query-gpu listing is query_gpu_parser.hpp).
// Text in, values out; running the tool is smi_runner's job.
#pragma once

#include "model/gpu.hpp"
#include "model/topology.hpp"
#include "util/expected.hpp"

#include <string_view>
#include <vector>

namespace peergate::sources::smi {

// Reads `nvidia-smi topo -m` output by the rules of docs/gate-rules.md §3 tier 2: ANSI escapes
// stripped, stop at "Legend", header = first line whose leading GPU<n> run has >= 2 entries.
// After the GPU run, the affinity columns are found by their words ("CPU Affinity", "NUMA
// Affinity", "GPU NUMA ID") wherever they sit; every other column is a NIC column, whether
// named NIC<n> or by its RDMA device (mlx5_0, mlx4_0, bnxt_re0, ...), so the affinity cells
// are read from their own columns. Data rows start with GPU<n>; NIC rows (a NIC column's
// name first) are checked for shape, their paths are not kept.
// Any shortfall (short row, a row whose cells do not fill the header's columns, a cell of
// the wrong kind, missing row, no header, a header word out of place, bad diagonal,
// asymmetry, unknown token) is an error naming the failed check and, where there is one,
// the line: never a guess from the rows or columns that did arrive.
// The result has source nvidia_smi and empty provenance; gpus carry index, numa_node and
// cpu_affinity only (names and bus ids come from the --query-gpu reader).
util::Expected<model::Topology> parse_topo_m(std::string_view text);

}  // namespace peergate::sources::smi
