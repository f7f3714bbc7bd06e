// SPDX-License-Identifier: Apache-2.0
#include "report/watch/text.hpp"

#include "policy/watch/traffic_units.hpp"
#include "report/doctor/text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace peergate::report::watch {

namespace {

using namespace policy::watch;

std::string headline(const WatchReport& report) {
    const std::string what =
        report.command.empty()
            ? std::string("attached")
            : fmt::format("'{}' {}",
                          fmt::join(report.command, " "),
                          report.exit_status
                              ? fmt::format("exited with status {}", *report.exit_status)
                              : std::string("ran"));
    std::string out = fmt::format("peergate watch: {} after {:.1f} s; {} rounds every {} ms\n",
                                  what,
                                  report.seconds,
                                  report.totals.rounds,
                                  report.interval_ms);
    if (report.gate) {
        out += fmt::format("Gate ({}): P2P {} ({})\n",
                           report.gate->profile,
                           report.gate->p2p ? "allowed" : "not allowed",
                           report.gate->rule);
    }
    if (!report.sampling_error.empty()) {
        out += "Sampling: " + report.sampling_error + "\n";
    }
    return out;
}

std::string far_end_name(const PeerTotals& end) {
    return end.to_switch ? "NVSwitch" : end.peer ? fmt::format("GPU{}", *end.peer) : "other";
}

std::string nvlink_section(const WatchReport& report) {
    std::string rows;
    for (const auto& gpu : report.totals.gpus) {
        for (const auto& end : gpu.toward) {
            const double average = report.totals.seconds > 0.0
                                       ? static_cast<double>(end.tx.bytes) / report.totals.seconds
                                       : 0.0;
            rows += fmt::format("  GPU{} -> {:<9} {:>9}  {:>11} avg  {:>11} peak  ({} link{})\n",
                                gpu.index,
                                far_end_name(end),
                                bytes_text(end.tx.bytes),
                                rate_text(average),
                                rate_text(end.tx.peak_bytes_per_s),
                                end.links,
                                end.links == 1 ? "" : "s");
        }
        if (gpu.nvlink == NvlinkCounting::summed_only && gpu.toward.empty()) {
            rows += fmt::format("  GPU{} -> (links not told apart) {:>9} sent, {} received\n",
                                gpu.index,
                                bytes_text(gpu.nvlink_tx.bytes),
                                bytes_text(gpu.nvlink_rx.bytes));
        }
    }
    return rows.empty() ? "" : "\nNVLink, bytes sent by GPU and far end:\n" + rows;
}

std::string pcie_section(const WatchReport& report) {
    std::string rows;
    for (const auto& gpu : report.totals.gpus) {
        if (!gpu.pcie_known) {
            rows += fmt::format("  GPU{}  unknown ({})\n", gpu.index, gpu.pcie_reason);
            continue;
        }
        rows += fmt::format("  GPU{}  sent {:>9}  received {:>9}  peak {} / {}\n",
                            gpu.index,
                            bytes_text(gpu.pcie_tx.bytes),
                            bytes_text(gpu.pcie_rx.bytes),
                            rate_text(gpu.pcie_tx.peak_bytes_per_s),
                            rate_text(gpu.pcie_rx.peak_bytes_per_s));
    }
    return rows.empty() ? "" : "\nPCIe, by GPU (estimated from 20 ms rate samples):\n" + rows;
}

std::string verdict_section(const WatchReport& report) {
    std::string rows;
    for (const auto& pair : report.verdicts) {
        rows += fmt::format(
            "  GPU{} - GPU{}  {:<7}  {}\n", pair.a, pair.b, to_string(pair.verdict), pair.reason);
    }
    return rows.empty() ? "" : "\nVerdicts:\n" + rows;
}

}  // namespace

std::string watch_to_text(const WatchReport& report) {
    return headline(report) + nvlink_section(report) + pcie_section(report) +
           verdict_section(report) + report::doctor::findings_to_text(report.findings);
}

}  // namespace peergate::report::watch
