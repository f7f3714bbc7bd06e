// SPDX-License-Identifier: Apache-2.0
#include "sources/smi/topo_m_parser.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace peergate::sources::smi {

namespace {

using util::ErrorCode;

util::Unexpected unreadable(std::string why) {
    return util::unexpected(ErrorCode::invalid_input,
                            "nvidia-smi topo -m output is unreadable: " + why);
}

// More GPU columns than any host has: a header this wide is garbage, and the n x n
// matrix it would ask for must not be allocated.
constexpr std::size_t kMaxGpus = 1024;

// Index of a "GPU<n>" token (n decimal digits only, so "GPU-1" is no column), else nullopt.
std::optional<int> gpu_token(std::string_view token) {
    if (token.size() < 4 || token.substr(0, 3) != "GPU" || token[3] < '0' || token[3] > '9') {
        return std::nullopt;
    }
    return util::parse_int<int>(token.substr(3));
}

// The header: GPU columns, and where the affinity columns sit among the header's words.
struct Header {
    std::vector<int> gpus;
    std::size_t extra_columns = 0;  // NIC<n> columns, whose labels rows also carry
    bool has_cpu_affinity = false;
    bool has_numa_affinity = false;
};

std::optional<Header> read_header(const std::vector<std::string_view>& tokens) {
    Header header;
    std::size_t i = 0;
    while (i < tokens.size()) {
        const auto gpu = gpu_token(tokens[i]);
        if (!gpu) {
            break;
        }
        header.gpus.push_back(*gpu);
        ++i;
    }
    if (header.gpus.size() < 2) {
        return std::nullopt;
    }
    for (; i < tokens.size() && tokens[i].substr(0, 3) == "NIC"; ++i) {
        ++header.extra_columns;
    }
    std::string rest;
    for (; i < tokens.size(); ++i) {
        rest += std::string(tokens[i]) + " ";
    }
    header.has_cpu_affinity = rest.find("CPU Affinity") != std::string::npos;
    header.has_numa_affinity = rest.find("NUMA Affinity") != std::string::npos;
    return header;
}

// Affinity fields follow the labels: "0-47,96-143  0  N/A" or "0-23  N/A".
void read_affinity(const Header& header,
                   const std::vector<std::string_view>& tail,
                   model::Gpu& gpu) {
    std::size_t k = 0;
    if (header.has_cpu_affinity && k < tail.size()) {
        gpu.cpu_affinity = tail[k] == "N/A" ? "" : std::string(tail[k]);
        ++k;
    }
    if (header.has_numa_affinity && k < tail.size()) {
        gpu.numa_node = util::parse_int<int>(tail[k]);
    }
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

struct Rows {
    std::vector<std::vector<std::string_view>> tokens;  // per GPU row, label tokens onwards
    std::vector<int> indices;
};

// Row r's labels and affinity into `topology`, at the GPU's position; the row must name a
// header column, appear once and carry a label for every column.
util::Expected<void> fill_row(const Header& header,
                              const Rows& rows,
                              std::size_t r,
                              model::Topology& topology,
                              std::vector<bool>& filled) {
    const std::size_t n = header.gpus.size();
    const auto p = topology.position_of(rows.indices[r]);
    if (!p) {
        return unreadable(fmt::format("row GPU{} has no column in the header", rows.indices[r]));
    }
    if (filled[*p]) {
        return unreadable(fmt::format("row GPU{} appears twice", rows.indices[r]));
    }
    const auto& cells = rows.tokens[r];
    if (cells.size() < n) {
        return unreadable(fmt::format("row GPU{} has {} labels for {} GPU columns (truncated)",
                                      rows.indices[r],
                                      cells.size(),
                                      n));
    }
    for (std::size_t q = 0; q < n; ++q) {
        const auto label = model::LinkLabel::parse(cells[q]);
        if (!label) {
            return unreadable(fmt::format("vocabulary: GPU{} to GPU{} is '{}', not a legend token",
                                          rows.indices[r],
                                          header.gpus[q],
                                          cells[q]));
        }
        topology.matrix[*p][q] = *label;
    }
    const std::size_t labels = n + header.extra_columns;
    const std::vector<std::string_view> tail(
        cells.begin() + static_cast<long>(std::min(labels, cells.size())), cells.end());
    read_affinity(header, tail, topology.gpus[*p]);
    filled[*p] = true;
    return {};
}

util::Expected<model::Topology> build(const Header& header, const Rows& rows) {
    const std::size_t n = header.gpus.size();
    model::Topology topology;
    topology.source = model::TopologySource::nvidia_smi;
    for (int index : header.gpus) {
        topology.gpus.push_back(model::Gpu{.index = index});
    }
    topology.matrix.assign(n, std::vector<model::LinkLabel>(n));
    std::vector<bool> filled(n, false);
    for (std::size_t r = 0; r < rows.indices.size(); ++r) {
        PEERGATE_TRY(fill_row(header, rows, r, topology, filled));
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

}  // namespace

util::Expected<model::Topology> parse_topo_m(std::string_view text) {
    const std::string clean = util::strip_ansi(text);
    std::optional<Header> header;
    Rows rows;
    for (std::string_view line : util::split_lines(clean)) {
        if (util::trim(line).substr(0, 6) == "Legend") {
            break;
        }
        const auto tokens = util::split_whitespace(line);
        if (tokens.empty()) {
            continue;
        }
        if (!header) {
            header = read_header(tokens);
            continue;
        }
        if (const auto index = gpu_token(tokens[0])) {
            rows.indices.push_back(*index);
            rows.tokens.emplace_back(tokens.begin() + 1, tokens.end());
        }
    }
    if (!header) {
        return unreadable("no header line with at least two GPU columns");
    }
    PEERGATE_TRY(check_header(*header));
    if (rows.indices.empty()) {
        return unreadable("a header but no GPU rows");
    }
    return build(*header, rows);
}

util::Expected<std::vector<model::Gpu>> parse_query_gpu(std::string_view text) {
    std::vector<model::Gpu> gpus;
    int line_number = 0;
    for (std::string_view line : util::split_lines(text)) {
        ++line_number;
        if (util::trim(line).empty()) {
            continue;
        }
        const auto fields = util::split(line, ',');
        const auto where = [&] { return fmt::format("--query-gpu output line {}", line_number); };
        if (fields.size() != 4) {
            return util::unexpected(
                ErrorCode::invalid_input,
                fmt::format(
                    "{}: {} fields, expected index,name,pci.bus_id,uuid", where(), fields.size()));
        }
        const auto index = util::parse_int<int>(util::trim(fields[0]));
        auto pci = model::PciAddress::parse(util::trim(fields[2]));
        if (!index || *index < 0) {
            return util::unexpected(ErrorCode::invalid_input, where() + ": bad index");
        }
        if (!pci) {
            return util::unexpected(ErrorCode::invalid_input, where() + ": " + pci.error().message);
        }
        gpus.push_back(model::Gpu{.index = *index,
                                  .name = std::string(util::trim(fields[1])),
                                  .pci = *pci,
                                  .uuid = std::string(util::trim(fields[3]))});
    }
    if (gpus.empty()) {
        return util::unexpected(ErrorCode::invalid_input, "--query-gpu output lists no GPU");
    }
    return gpus;
}

}  // namespace peergate::sources::smi
