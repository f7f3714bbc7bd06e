// SPDX-License-Identifier: Apache-2.0
// The header line of `nvidia-smi topo -m`: which column holds what. Shared by the matrix
// reader (topo_m_parser.cpp); pure.
#pragma once

#include "util/expected.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::sources::smi::topo_m {

// "nvidia-smi topo -m output is unreadable: <why>", as every failed check says.
util::Unexpected unreadable(std::string_view why);

// "line <n>: <what>".
std::string at_line(std::size_t line, std::string_view what);

// Index of a "GPU<n>" token (n decimal digits only, so "GPU-1" is no column), else nullopt.
std::optional<int> gpu_token(std::string_view token);

// What a header column after the GPU run holds (docs/gate-rules.md §3 tier 2).
enum class Column { nic, cpu_affinity, numa_affinity, gpu_numa_id };

// The header: GPU columns, then every other column in order. A column that is not GPU<n>
// and not an affinity header ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID", found by their
// words wherever they sit) is a NIC column, named NIC<n> or by its RDMA device (mlx5_0,
// mlx4_0, bnxt_re0, irdma0, efa0, hfi1_0, qedr0, ionic_0, ...).
struct Header {
    std::vector<int> gpus;
    std::vector<Column> others;      // the columns after the GPU run, in header order
    std::vector<std::string> names;  // their header text, as the reasons name them
    std::size_t line = 0;

    std::size_t columns() const { return gpus.size() + others.size(); }

    std::size_t count(Column column) const {
        return static_cast<std::size_t>(std::count(others.begin(), others.end(), column));
    }

    // The names of the NIC columns, in header order.
    std::vector<std::string> nic_names() const;

    // Which NIC column (in nic_names() order) `token` names, if any.
    std::optional<std::size_t> nic_of(std::string_view token) const;
};

// nullopt when the line is no header (a leading GPU<n> run of fewer than two); an error when
// it is one whose columns cannot all be named.
util::Expected<std::optional<Header>> read_header(const std::vector<std::string_view>& tokens,
                                                  std::size_t line);

// A header that names a column twice or names absurdly many cannot describe a matrix.
util::Expected<void> check_header(const Header& header);

}  // namespace peergate::sources::smi::topo_m
