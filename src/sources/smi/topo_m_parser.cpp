// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/topo_m_parser.hpp"

#include "sources/smi/topo_m_header.hpp"
#include "sources/smi/topo_m_nics.hpp"
#include "util/cpu_list.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>

namespace peergate::sources::smi {

namespace {

using topo_m::at_line;
using topo_m::Column;
using topo_m::gpu_token;
using topo_m::Header;
using topo_m::read_header;
using topo_m::unreadable;

// "N/A" (unknown), or one NUMA node. A list of nodes is no NUMA cell: every real output found
// prints one node or N/A, and a list ("0-63") cannot be told from a CPU list moved one column
// to the right (tests/unit/smi/topo_m_mutation_test.cpp); NVML's tier reads such a GPU.
std::optional<std::optional<int>> numa_cell(std::string_view cell) {
    if (cell == "N/A") {
        return std::optional<int>();
    }
    if (const auto node = util::parse_int<int>(cell); node && *node >= 0) {
        return node;
    }
    return std::nullopt;
}

struct Row {
    int index = 0;
    std::size_t line = 0;
    std::vector<std::string_view> cells;  // the tokens after the row's GPU<n> label
};

// Cell n + j of the row: a link label under a NIC column, a CPU list or N/A under CPU
// Affinity, a node under the NUMA columns. A cell of the wrong kind means the cells are not
// where the header says, so nothing of the row can be trusted.
util::Expected<void> read_other_cell(const Header& header,
                                     const Row& row,
                                     std::size_t j,
                                     model::Gpu& gpu) {
    const std::string_view cell = row.cells[header.gpus.size() + j];
    const auto wrong = [&](std::string_view kind) {
        return unreadable(at_line(
            row.line,
            fmt::format(
                "row GPU{} has '{}' under {}, not {}", row.index, cell, header.names[j], kind)));
    };
    switch (header.others[j]) {
        case Column::nic: {
            // X belongs on a diagonal only: a GPU is not the NIC beside it.
            const auto label = model::LinkLabel::parse(cell);
            return label && label->kind != model::LinkKind::self ? util::Expected<void>{}
                                                                 : wrong("a link label");
        }
        case Column::cpu_affinity:
            if (cell != "N/A" && !util::parse_cpu_ranges(cell)) {
                return wrong("a CPU list");
            }
            gpu.cpu_affinity = cell == "N/A" ? "" : std::string(cell);
            return {};
        case Column::numa_affinity:
        case Column::gpu_numa_id: {
            const auto node = numa_cell(cell);
            if (!node) {
                return wrong("one NUMA node or N/A");
            }
            if (header.others[j] == Column::numa_affinity) {
                gpu.numa_node = *node;
            }
            return {};
        }
    }
    return {};
}

// A GPU's own memory node (GPU NUMA ID, Grace-class machines) comes with the node of the CPUs
// beside it; every real output with N/A under NUMA Affinity has N/A there too. A node under
// GPU NUMA ID beside an N/A is two cells out of place (docs/gate-rules.md §3).
util::Expected<void> check_numa_cells(const Header& header, const Row& row) {
    std::optional<std::optional<int>> affinity;
    std::optional<std::optional<int>> own;
    for (std::size_t j = 0; j < header.others.size(); ++j) {
        const auto cell = numa_cell(row.cells[header.gpus.size() + j]);
        if (header.others[j] == Column::numa_affinity) {
            affinity = cell;
        } else if (header.others[j] == Column::gpu_numa_id) {
            own = cell;
        }
    }
    if (affinity && own && !*affinity && *own) {
        return unreadable(at_line(
            row.line,
            fmt::format("row GPU{} has a GPU NUMA ID ({}) but N/A under NUMA Affinity: the cells "
                        "are not where the header says",
                        row.index,
                        **own)));
    }
    return {};
}

// A GPU row has one cell per header column. Only a header of GPU columns alone lets a row run
// longer: every label is then among the first cells, and no column names what follows.
util::Expected<void> check_row_width(const Header& header, const Row& row) {
    const std::size_t n = header.gpus.size();
    if (row.cells.size() < n) {
        return unreadable(
            at_line(row.line,
                    fmt::format("row GPU{} has {} labels for {} GPU columns (truncated)",
                                row.index,
                                row.cells.size(),
                                n)));
    }
    if (header.others.empty() || row.cells.size() == header.columns()) {
        return {};
    }
    const std::size_t nics = header.count(Column::nic);
    return unreadable(at_line(
        row.line,
        fmt::format("row GPU{} has {} cells for {} header columns ({} GPU, {} NIC, {} affinity)",
                    row.index,
                    row.cells.size(),
                    header.columns(),
                    n,
                    nics,
                    header.others.size() - nics)));
}

// The row's labels and other cells into `topology`, at the GPU's position; the row must name
// a header column, appear once and fill every column.
// `topo -p2p` prints the same grid with P2P status tokens; a paste of it is named as such.
std::string not_a_link(int from, int to, std::string_view token) {
    static constexpr std::array<std::string_view, 7> kP2pStatus{
        "OK", "NS", "CNS", "GNS", "TNS", "DR", "U"};
    const bool p2p = std::find(kP2pStatus.begin(), kP2pStatus.end(), token) != kP2pStatus.end();
    return fmt::format("vocabulary: GPU{} to GPU{} is '{}', not a legend token{}",
                       from,
                       to,
                       token,
                       p2p ? " (a P2P status: this is 'nvidia-smi topo -p2p' output; "
                             "pass 'nvidia-smi topo -m')"
                           : "");
}

util::Expected<void> fill_row(const Header& header,
                              const Row& row,
                              model::Topology& topology,
                              std::vector<bool>& filled) {
    const auto p = topology.position_of(row.index);
    if (!p) {
        return unreadable(
            at_line(row.line, fmt::format("row GPU{} has no column in the header", row.index)));
    }
    if (filled[*p]) {
        return unreadable(at_line(row.line, fmt::format("row GPU{} appears twice", row.index)));
    }
    PEERGATE_TRY(check_row_width(header, row));
    const std::size_t n = header.gpus.size();
    for (std::size_t q = 0; q < n; ++q) {
        const auto label = model::LinkLabel::parse(row.cells[q]);
        if (!label) {
            return unreadable(
                at_line(row.line, not_a_link(row.index, header.gpus[q], row.cells[q])));
        }
        topology.matrix[*p][q] = *label;
    }
    std::size_t nic = 0;
    for (std::size_t j = 0; j < header.others.size(); ++j) {
        PEERGATE_TRY(read_other_cell(header, row, j, topology.gpus[*p]));
        if (header.others[j] == Column::nic) {
            topology.nics[nic++].paths[*p] = *model::LinkLabel::parse(row.cells[n + j]);
        }
    }
    PEERGATE_TRY(check_numa_cells(header, row));
    filled[*p] = true;
    return {};
}

// The header, the GPU and NIC rows up to the legend, and the NIC Legend's lines.
struct Table {
    std::optional<Header> header;
    std::vector<Row> rows;
    std::vector<NicRow> nic_rows;
    bool nic_legend = false;  // a "NIC Legend:" line was seen
    std::vector<LegendEntry> legend;
};

util::Expected<model::Topology> build(const Table& table) {
    const Header& header = *table.header;
    const std::size_t n = header.gpus.size();
    model::Topology topology;
    topology.source = model::TopologySource::nvidia_smi;
    for (int index : header.gpus) {
        topology.gpus.push_back(model::Gpu{.index = index});
    }
    topology.matrix.assign(n, std::vector<model::LinkLabel>(n));
    for (const auto& name : header.nic_names()) {
        topology.nics.push_back(model::TopologyNic{
            .name = name, .device = "", .paths = std::vector<model::LinkLabel>(n)});
    }
    std::vector<bool> filled(n, false);
    for (const Row& row : table.rows) {
        PEERGATE_TRY(fill_row(header, row, topology, filled));
    }
    for (std::size_t p = 0; p < n; ++p) {
        if (!filled[p]) {
            return unreadable(
                fmt::format("missing row for GPU{} (output cut off?)", header.gpus[p]));
        }
    }
    if (auto ok = model::check_matrix(topology); !ok) {
        return unreadable(ok.error().message);
    }
    PEERGATE_TRY(check_nic_rows(header, table.nic_rows, topology));
    PEERGATE_TRY(name_devices(header, table.nic_legend, table.legend, topology));
    return topology;
}

util::Expected<void> read_line(std::string_view line, std::size_t number, Table& table) {
    const auto tokens = util::split_whitespace(line);
    if (tokens.empty()) {
        return {};
    }
    if (!table.header) {
        auto header = read_header(tokens, number);
        if (!header) {
            return util::unexpected(header.error());
        }
        table.header = std::move(*header);
        return {};
    }
    if (const auto index = gpu_token(tokens[0])) {
        table.rows.push_back(Row{*index, number, {tokens.begin() + 1, tokens.end()}});
    } else if (const auto nic = table.header->nic_of(tokens[0])) {
        table.nic_rows.push_back(NicRow{*nic, number, {tokens.begin() + 1, tokens.end()}});
    }
    return {};
}

// A line after "Legend": "NIC Legend:" opens the NIC names, "  NIC0: mlx5_0" is one; other
// lines (the GPU legend, a shell prompt after a paste) say nothing about the matrix.
void read_legend_line(std::string_view line, std::size_t number, Table& table) {
    const auto tokens = util::split_whitespace(line);
    if (tokens.size() == 2 && tokens[0] == "NIC" && tokens[1] == "Legend:") {
        table.nic_legend = true;
        return;
    }
    if (table.nic_legend && tokens.size() == 2 && tokens[0].size() > 1 && tokens[0].back() == ':') {
        table.legend.push_back(
            LegendEntry{.column = std::string(tokens[0].substr(0, tokens[0].size() - 1)),
                        .device = std::string(tokens[1]),
                        .line = number});
    }
}

}  // namespace

util::Expected<model::Topology> parse_topo_m(std::string_view text) {
    const std::string clean = util::strip_ansi(text);
    Table table;
    std::size_t number = 0;
    bool in_legend = false;
    for (std::string_view line : util::split_lines(clean)) {
        ++number;
        in_legend = in_legend || util::trim(line).substr(0, 6) == "Legend";
        if (in_legend) {
            read_legend_line(line, number, table);
            continue;
        }
        PEERGATE_TRY(read_line(line, number, table));
    }
    if (!table.header) {
        return unreadable("no header line with at least two GPU columns");
    }
    PEERGATE_TRY(topo_m::check_header(*table.header));
    if (table.rows.empty()) {
        return unreadable("a header but no GPU rows");
    }
    return build(table);
}

}  // namespace peergate::sources::smi
