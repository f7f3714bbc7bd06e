// SPDX-License-Identifier: Apache-2.0
// The NIC rows and the NIC Legend of `nvidia-smi topo -m`: each NIC row must agree with the
// GPU rows (the matrix is symmetric), and the legend names each NIC<n> column's RDMA device
// (docs/gate-rules.md §3, tier 2). Pure.
#pragma once

#include "model/topology.hpp"
#include "sources/smi/topo_m_header.hpp"
#include "util/expected.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::sources::smi {

// A row whose first token is a NIC column's name.
struct NicRow {
    std::size_t nic = 0;  // which NIC column, in header order
    std::size_t line = 0;
    std::vector<std::string_view> cells;  // the tokens after the NIC's name
};

// "NIC0: mlx5_0" under "NIC Legend:".
struct LegendEntry {
    std::string column;
    std::string device;
    std::size_t line = 0;
};

// Every NIC column has exactly one row, and each row agrees with the GPU rows: one label per
// GPU and NIC column, the GPU rows' path under each GPU column, X in its own column only.
util::Expected<void> check_nic_rows(const topo_m::Header& header,
                                    const std::vector<NicRow>& rows,
                                    const model::Topology& topology);

// Each NIC's RDMA device: its NIC Legend line, or its own column name where the header names
// the device. Once a NIC Legend is seen it must name every NIC<n> column exactly once.
util::Expected<void> name_devices(const topo_m::Header& header,
                                  bool nic_legend,
                                  const std::vector<LegendEntry>& legend,
                                  model::Topology& topology);

}  // namespace peergate::sources::smi
