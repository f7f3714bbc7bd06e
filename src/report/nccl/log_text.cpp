// SPDX-License-Identifier: Apache-2.0
#include "report/nccl/log_text.hpp"

#include "report/nccl/diag_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace peergate::report::nccl {

namespace {

using model::NcclTransport;

constexpr NcclTransport kTransports[] = {NcclTransport::p2p,
                                         NcclTransport::shm,
                                         NcclTransport::net,
                                         NcclTransport::collnet,
                                         NcclTransport::nvls};

std::string paint(const std::string& text, const char* code, bool color) {
    return color ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : text;
}

std::string severity_label(model::Severity severity, bool color) {
    std::string word(model::to_string(severity));
    switch (severity) {
        case model::Severity::error:
            return paint(word, "31;1", color);
        case model::Severity::warning:
            return paint(word, "33", color);
        case model::Severity::info:
            return paint(word, "36", color);
    }
    return word;
}

std::string count_cell(std::uint64_t count) {
    return count == 0 ? "-" : std::to_string(count);
}

std::string nvlink_cell(const policy::nccl::NcclPair& pair) {
    if (!pair.nvlinked) {
        return "?";
    }
    return *pair.nvlinked ? "yes" : "no";
}

std::string header(const NcclLogReport& report) {
    const auto& log = *report.log;
    const auto& analysis = *report.analysis;
    std::string out =
        fmt::format("NCCL log: {} input{}, {} lines, {} connection lines{}\n",
                    report.inputs.size(),
                    report.inputs.size() == 1 ? "" : "s",
                    log.counts.lines,
                    log.counts.connection_lines,
                    log.nccl_version.empty() ? "" : fmt::format(" (NCCL {})", log.nccl_version));
    const auto complete = std::count_if(log.ranks.begin(),
                                        log.ranks.end(),
                                        [](const model::NcclRank& r) { return r.init_complete; });
    out += fmt::format("Ranks: {} seen, {} reached Init COMPLETE; hosts: {}\n",
                       log.ranks.size(),
                       complete,
                       analysis.hosts.empty() ? std::string("unknown")
                                              : fmt::format("{}", fmt::join(analysis.hosts, ", ")));
    std::vector<std::string> totals;
    for (auto transport : kTransports) {
        totals.push_back(
            fmt::format("{} {}",
                        model::to_string(transport),
                        analysis.transport_counts[static_cast<std::size_t>(transport)]));
    }
    out += fmt::format("Connection lines by transport: {}\n", fmt::join(totals, ", "));
    return out;
}

// NCCL's own GPU Direct RDMA lines, each distinct one once with its host, then the CUDA
// devices it found DMA-BUF on.
std::string gdr_lines(const model::NcclLog& log, std::size_t max_lines) {
    std::string out;
    std::size_t shown = 0;
    for (const auto& line : log.gdr) {
        if (shown++ == max_lines) {
            out += fmt::format("  ... {} more (use --json, or -v for all)\n",
                               log.gdr.size() - max_lines);
            break;
        }
        out += fmt::format("  {}{}{}\n",
                           line.host.empty() ? "" : line.host + ": ",
                           model::to_text(line),
                           line.count > 1 ? fmt::format(" (x{})", line.count) : "");
    }
    for (const auto& [host, devices] : log.dma_buf_devices) {
        out += fmt::format("  {}DMA-BUF available on CUDA device{} {}\n",
                           host.empty() ? "" : host + ": ",
                           devices.size() == 1 ? "" : "s",
                           fmt::join(devices, ","));
    }
    return out.empty() ? out : "\nGPUDirect RDMA, as NCCL reported it:\n" + out;
}

std::string pair_table(const policy::nccl::NcclAnalysis& analysis, std::size_t max_pairs) {
    if (analysis.pairs.empty()) {
        return {};
    }
    std::string out = fmt::format("\n{:<14} {:<16} {:>5} {:>5} {:>5} {:>7} {:>5}  {:<6} {}\n",
                                  "pair",
                                  "host",
                                  "P2P",
                                  "SHM",
                                  "NET",
                                  "COLLNET",
                                  "NVLS",
                                  "NVLink",
                                  "via");
    std::size_t shown = 0;
    for (const auto& pair : analysis.pairs) {
        if (shown++ == max_pairs) {
            out += fmt::format("... {} more pairs (use --json, or -v for all)\n",
                               analysis.pairs.size() - max_pairs);
            break;
        }
        const std::string name = pair.dst_rank
                                     ? fmt::format("{} -> {}", pair.src_rank, *pair.dst_rank)
                                     : fmt::format("{} (collnet)", pair.src_rank);
        const std::string host =
            pair.hosts.empty() ? "?" : *pair.hosts.begin() + (pair.hosts.size() > 1 ? "+" : "");
        const auto& l = pair.lines;
        out += fmt::format("{:<14} {:<16} {:>5} {:>5} {:>5} {:>7} {:>5}  {:<6} {}\n",
                           name,
                           host,
                           count_cell(l[0]),
                           count_cell(l[1]),
                           count_cell(l[2]),
                           count_cell(l[3]),
                           count_cell(l[4]),
                           nvlink_cell(pair),
                           fmt::join(pair.details, ", "));
    }
    return out;
}

}  // namespace

std::string nccl_log_to_text(const NcclLogReport& report, bool color, std::size_t max_pairs) {
    std::string out = header(report);
    out += pair_table(*report.analysis, max_pairs);
    out += diagnostics_to_text(*report.log, *report.analysis, max_pairs);
    out += gdr_lines(*report.log, max_pairs);
    if (!report.log->settings.empty()) {
        std::vector<std::string> settings;
        for (const auto& [name, value] : report.log->settings) {
            settings.push_back(fmt::format("{}={}", name, value));
        }
        out += fmt::format("\nSettings from the environment: {}\n", fmt::join(settings, " "));
    }
    const auto& findings = report.analysis->findings;
    out += findings.empty() ? "\nNo findings.\n" : "\nFindings:\n";
    for (const auto& finding : findings) {
        out += fmt::format("  {} {}: {}\n",
                           severity_label(finding.severity, color),
                           finding.id(),
                           finding.message);
        if (!finding.remedy.empty()) {
            out += fmt::format("      remedy: {}\n", finding.remedy);
        }
    }
    return out;
}

}  // namespace peergate::report::nccl
