// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/topo_m_parser.hpp"

#include "util/cpu_list.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace peergate::sources::smi {

namespace {

using util::ErrorCode;

util::Unexpected unreadable(std::string_view why) {
    return util::unexpected(ErrorCode::invalid_input,
                            "nvidia-smi topo -m output is unreadable: " + std::string(why));
}

// More GPU columns than any host has: a header this wide is garbage, and the n x n
// matrix it would ask for must not be allocated.
constexpr std::size_t kMaxGpus = 1024;

// The same for the NIC and affinity columns, whose names are checked against each other.
constexpr std::size_t kMaxOtherColumns = 1024;

// Index of a "GPU<n>" token (n decimal digits only, so "GPU-1" is no column), else nullopt.
std::optional<int> gpu_token(std::string_view token) {
    if (token.size() < 4 || token.substr(0, 3) != "GPU" || token[3] < '0' || token[3] > '9') {
        return std::nullopt;
    }
    return util::parse_int<int>(token.substr(3));
}

// What a header column after the GPU run holds (docs/gate-rules.md §3 tier 2).
enum class Column { nic, cpu_affinity, numa_affinity, gpu_numa_id };

// The multi-word headers nvidia-smi prints after the GPU and NIC columns, found by their
// words wherever they sit. One cell per column in every GPU row.
struct AffinityHeader {
    Column column;
    std::string_view name;
    std::vector<std::string_view> words;
};

const std::vector<AffinityHeader>& affinity_headers() {
    static const std::vector<AffinityHeader> headers{
        {Column::cpu_affinity, "CPU Affinity", {"CPU", "Affinity"}},
        {Column::numa_affinity, "NUMA Affinity", {"NUMA", "Affinity"}},
        {Column::gpu_numa_id, "GPU NUMA ID", {"GPU", "NUMA", "ID"}},
    };
    return headers;
}

// The words of those headers: one of them outside a whole header is a garbled header, not a
// NIC named "Affinity".
bool is_affinity_word(std::string_view token) {
    return token == "CPU" || token == "NUMA" || token == "Affinity" || token == "ID" ||
           token == "GPU";
}

// The affinity header starting at tokens[i], if the words there spell one.
const AffinityHeader* affinity_header_at(const std::vector<std::string_view>& tokens,
                                         std::size_t i) {
    for (const auto& header : affinity_headers()) {
        const auto& words = header.words;
        if (i + words.size() <= tokens.size() &&
            std::equal(words.begin(), words.end(), tokens.begin() + static_cast<long>(i))) {
            return &header;
        }
    }
    return nullptr;
}

// The header: GPU columns, then every other column in order. A column that is not GPU<n>
// and not an affinity header is a NIC column, named NIC<n> or by its RDMA device (mlx5_0,
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

    bool is_nic(std::string_view token) const {
        for (std::size_t j = 0; j < others.size(); ++j) {
            if (others[j] == Column::nic && names[j] == token) {
                return true;
            }
        }
        return false;
    }
};

std::string at_line(std::size_t line, std::string_view what) {
    return fmt::format("line {}: {}", line, what);
}

// One column after the GPU run, starting at tokens[i]; returns how many tokens it took.
util::Expected<std::size_t> read_other_column(const std::vector<std::string_view>& tokens,
                                              std::size_t i,
                                              Header& header) {
    const auto where = [&](std::string_view what) {
        return unreadable(at_line(header.line, fmt::format("header: {}", what)));
    };
    const AffinityHeader* affinity = affinity_header_at(tokens, i);
    std::string name = affinity ? std::string(affinity->name) : std::string(tokens[i]);
    const Column column = affinity ? affinity->column : Column::nic;
    if (!affinity && gpu_token(tokens[i])) {
        return where(fmt::format("column {} after the non-GPU columns", tokens[i]));
    }
    if (!affinity && is_affinity_word(tokens[i])) {
        return where(fmt::format(
            "'{}' is not part of a CPU Affinity, NUMA Affinity or GPU NUMA ID column", tokens[i]));
    }
    if (!affinity && model::LinkLabel::parse(tokens[i])) {
        return where(fmt::format("'{}' is a link label, not a NIC name", tokens[i]));
    }
    if (std::find(header.names.begin(), header.names.end(), name) != header.names.end()) {
        return where(fmt::format("column {} appears twice", name));
    }
    header.others.push_back(column);
    header.names.push_back(std::move(name));
    return affinity ? affinity->words.size() : 1U;
}

// nullopt when the line is no header (a leading GPU<n> run of fewer than two); an error when
// it is one whose columns cannot all be named.
util::Expected<std::optional<Header>> read_header(const std::vector<std::string_view>& tokens,
                                                  std::size_t line) {
    Header header;
    header.line = line;
    std::size_t i = 0;
    for (; i < tokens.size(); ++i) {
        const auto gpu = gpu_token(tokens[i]);
        if (!gpu) {
            break;
        }
        header.gpus.push_back(*gpu);
    }
    if (header.gpus.size() < 2) {
        return std::optional<Header>();
    }
    while (i < tokens.size()) {
        if (header.others.size() >= kMaxOtherColumns) {
            return unreadable(at_line(
                line,
                fmt::format("header: more than {} NIC and affinity columns (not topo -m output?)",
                            kMaxOtherColumns)));
        }
        const auto taken = read_other_column(tokens, i, header);
        if (!taken) {
            return util::unexpected(taken.error());
        }
        i += *taken;
    }
    return std::optional<Header>(std::move(header));
}

// A header that names a column twice or names absurdly many cannot describe a matrix.
util::Expected<void> check_header(const Header& header) {
    if (header.gpus.size() > kMaxGpus) {
        return unreadable(fmt::format("header: {} GPU columns, more than {} (not topo -m output?)",
                                      header.gpus.size(),
                                      kMaxGpus));
    }
    std::vector<int> sorted = header.gpus;
    std::sort(sorted.begin(), sorted.end());
    if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
        return unreadable(fmt::format("header: column GPU{} appears twice", *dup));
    }
    return {};
}

// "N/A", or one NUMA node; a list of nodes ("0-1") is a real value with no single node, so
// it is unknown, as tier 1 has it (docs/gate-rules.md §3). Anything else is no NUMA cell.
std::optional<std::optional<int>> numa_cell(std::string_view cell) {
    if (cell == "N/A") {
        return std::optional<int>();
    }
    if (const auto node = util::parse_int<int>(cell); node && *node >= 0) {
        return node;
    }
    if (util::parse_cpu_ranges(cell)) {
        return std::optional<int>();
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
        case Column::nic:
            return model::LinkLabel::parse(cell) ? util::Expected<void>{} : wrong("a link label");
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
                return wrong("a NUMA node");
            }
            if (header.others[j] == Column::numa_affinity) {
                gpu.numa_node = *node;
            }
            return {};
        }
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
                at_line(row.line,
                        fmt::format("vocabulary: GPU{} to GPU{} is '{}', not a legend token",
                                    row.index,
                                    header.gpus[q],
                                    row.cells[q])));
        }
        topology.matrix[*p][q] = *label;
    }
    for (std::size_t j = 0; j < header.others.size(); ++j) {
        PEERGATE_TRY(read_other_cell(header, row, j, topology.gpus[*p]));
    }
    filled[*p] = true;
    return {};
}

// A NIC row (first token a NIC column's name) holds the NIC's path to every GPU and NIC and
// no affinity: one link label per GPU and NIC column. Its paths are not kept (the Topology
// has no NIC paths from text), but a NIC row that does not fit says the output is garbled.
util::Expected<void> check_nic_row(const Header& header,
                                   const std::vector<std::string_view>& tokens,
                                   std::size_t line) {
    const std::size_t width = header.gpus.size() + header.count(Column::nic);
    if (tokens.size() - 1 != width) {
        return unreadable(at_line(line,
                                  fmt::format("NIC row {} has {} cells for {} GPU and NIC columns",
                                              tokens[0],
                                              tokens.size() - 1,
                                              width)));
    }
    for (std::size_t k = 1; k < tokens.size(); ++k) {
        if (!model::LinkLabel::parse(tokens[k])) {
            return unreadable(at_line(
                line,
                fmt::format(
                    "vocabulary: NIC row {} has '{}', not a legend token", tokens[0], tokens[k])));
        }
    }
    return {};
}

util::Expected<model::Topology> build(const Header& header, const std::vector<Row>& rows) {
    const std::size_t n = header.gpus.size();
    model::Topology topology;
    topology.source = model::TopologySource::nvidia_smi;
    for (int index : header.gpus) {
        topology.gpus.push_back(model::Gpu{.index = index});
    }
    topology.matrix.assign(n, std::vector<model::LinkLabel>(n));
    std::vector<bool> filled(n, false);
    for (const Row& row : rows) {
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
    return topology;
}

// The header and the GPU rows, up to the legend; NIC rows are checked as they come.
struct Table {
    std::optional<Header> header;
    std::vector<Row> rows;
};

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
    } else if (table.header->is_nic(tokens[0])) {
        return check_nic_row(*table.header, tokens, number);
    }
    return {};
}

}  // namespace

util::Expected<model::Topology> parse_topo_m(std::string_view text) {
    const std::string clean = util::strip_ansi(text);
    Table table;
    std::size_t number = 0;
    for (std::string_view line : util::split_lines(clean)) {
        ++number;
        if (util::trim(line).substr(0, 6) == "Legend") {
            break;
        }
        PEERGATE_TRY(read_line(line, number, table));
    }
    if (!table.header) {
        return unreadable("no header line with at least two GPU columns");
    }
    PEERGATE_TRY(check_header(*table.header));
    if (table.rows.empty()) {
        return unreadable("a header but no GPU rows");
    }
    return build(*table.header, table.rows);
}

}  // namespace peergate::sources::smi
