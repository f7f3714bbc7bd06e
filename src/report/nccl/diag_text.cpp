// SPDX-License-Identifier: Apache-2.0
#include "report/nccl/diag_text.hpp"

#include <fmt/format.h>

namespace peergate::report::nccl {

namespace {

std::string more(std::size_t hidden) {
    return fmt::format("  ... {} more (use --json, or -v for all)\n", hidden);
}

std::string gpu_cell(const std::optional<int>& nvml_dev) {
    return nvml_dev ? std::to_string(*nvml_dev) : std::string("?");
}

std::string edge_rows(const std::vector<policy::nccl::NcclDiagEdge>& edges, std::size_t max_lines) {
    if (edges.empty()) {
        return {};
    }
    std::string out = fmt::format("  {:<10} {:<9} {:<16} {:<5} {:<16} {:<8} {}\n",
                                  "pair",
                                  "GPUs",
                                  "host",
                                  "path",
                                  "handle",
                                  "result",
                                  "NCCL's words");
    std::size_t shown = 0;
    for (const auto& edge : edges) {
        if (shown++ == max_lines) {
            return out + more(edges.size() - max_lines);
        }
        out += fmt::format("  {:<10} {:<9} {:<16} {:<5} {:<16} {:<8} {}\n",
                           fmt::format("{} -> {}", edge.src_rank, edge.dst_rank),
                           gpu_cell(edge.src_nvml_dev) + " -> " + gpu_cell(edge.dst_nvml_dev),
                           edge.host.empty() ? "?" : edge.host,
                           edge.path.empty() ? "?" : edge.path,
                           edge.handle.empty() ? "?" : edge.handle,
                           policy::nccl::to_string(edge.result),
                           edge.text);
    }
    return out;
}

// The report's lines that name no edge: the summary, "setup failed on rank N".
std::string report_rows(const model::NcclLog& log) {
    std::string out;
    for (const auto& line : log.diagnostics) {
        if (line.kind == model::NcclDiagKind::report) {
            out += fmt::format("  {}{} {}\n",
                               line.host.empty() ? "" : line.host + ": ",
                               line.problem ? "[INFO]" : "[OK]",
                               line.text);
        }
    }
    return out;
}

std::string ras_rows(const model::NcclLog& log, std::size_t max_lines) {
    std::string out;
    std::size_t shown = 0;
    for (const auto& line : log.ras) {
        if (shown++ == max_lines) {
            return out + more(log.ras.size() - max_lines);
        }
        out += fmt::format("  {:<12} {}{}{}\n",
                           model::to_string(line.kind),
                           line.host.empty() ? "" : line.host + ": ",
                           line.text,
                           line.count > 1 ? fmt::format(" (x{})", line.count) : "");
    }
    return out;
}

}  // namespace

std::string diagnostics_to_text(const model::NcclLog& log,
                                const policy::nccl::NcclAnalysis& analysis,
                                std::size_t max_lines) {
    std::string out;
    const std::string edges = edge_rows(analysis.diagnostics, max_lines) + report_rows(log);
    if (!edges.empty()) {
        out += "\nNCCL's P2P diagnostics (NCCL_RUN_DIAGNOSTICS=1; NCCL never vetoes a pair):\n" +
               edges;
    }
    const std::string ras = ras_rows(log, max_lines);
    if (!ras.empty()) {
        out += "\nNCCL RAS:\n" + ras;
    }
    return out;
}

}  // namespace peergate::report::nccl
