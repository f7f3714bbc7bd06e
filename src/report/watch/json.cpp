// SPDX-License-Identifier: Apache-2.0
#include "report/watch/json.hpp"

#include "report/doctor/json.hpp"

namespace peergate::report::watch {

namespace {

using Json = nlohmann::ordered_json;
using namespace policy::watch;

Json or_null(const std::string& text) {
    return text.empty() ? Json(nullptr) : Json(text);
}

Json counter_fields(Json j, const char* prefix, const CounterTotal& total) {
    j[std::string(prefix) + "_bytes"] = total.bytes;
    j[std::string("peak_") + prefix + "_bytes_per_s"] = total.peak_bytes_per_s;
    return j;
}

const char* far_end(bool to_switch, const std::optional<int>& peer) {
    return to_switch ? "nvswitch" : peer ? "gpu" : "other";
}

Json link_to_json(const LinkTotals& link) {
    Json j{{"link", link.link.link},
           {"remote", far_end(link.link.to_switch, link.link.peer)},
           {"peer", link.link.peer ? Json(*link.link.peer) : Json(nullptr)}};
    return counter_fields(counter_fields(std::move(j), "tx", link.tx), "rx", link.rx);
}

Json nvlink_to_json(const GpuTotals& gpu) {
    Json links = Json::array();
    for (const auto& link : gpu.links) {
        links.push_back(link_to_json(link));
    }
    Json j{{"counting", to_string(gpu.nvlink)}, {"reason", or_null(gpu.nvlink_reason)}};
    j = counter_fields(counter_fields(std::move(j), "tx", gpu.nvlink_tx), "rx", gpu.nvlink_rx);
    j["links"] = std::move(links);
    return j;
}

Json pcie_to_json(const GpuTotals& gpu) {
    Json j{{"known", gpu.pcie_known}, {"reason", or_null(gpu.pcie_reason)}};
    return counter_fields(counter_fields(std::move(j), "tx", gpu.pcie_tx), "rx", gpu.pcie_rx);
}

Json gpus_to_json(const WatchReport& report) {
    Json out = Json::array();
    for (std::size_t g = 0; g < report.gpus.size() && g < report.totals.gpus.size(); ++g) {
        const auto& gpu = report.totals.gpus[g];
        out.push_back(Json{{"index", gpu.index},
                           {"name", gpu.name},
                           {"pci_bus_id", report.gpus[g].pci.to_nvml()},
                           {"nvlink", nvlink_to_json(gpu)},
                           {"pcie", pcie_to_json(gpu)},
                           {"counter_resets", gpu.counter_resets}});
    }
    return out;
}

// Each GPU's NVLink traffic by far end: a peer GPU, the NVSwitches, another device.
Json pairs_to_json(const WatchReport& report) {
    Json out = Json::array();
    for (const auto& gpu : report.totals.gpus) {
        for (const auto& end : gpu.toward) {
            const double average = report.totals.seconds > 0.0
                                       ? static_cast<double>(end.tx.bytes) / report.totals.seconds
                                       : 0.0;
            out.push_back(Json{{"from", gpu.index},
                               {"to", end.peer ? Json(*end.peer) : Json(nullptr)},
                               {"via", far_end(end.to_switch, end.peer)},
                               {"links", end.links},
                               {"bytes", end.tx.bytes},
                               {"average_bytes_per_s", average},
                               {"peak_bytes_per_s", end.tx.peak_bytes_per_s}});
        }
    }
    return out;
}

Json verdicts_to_json(const WatchReport& report) {
    Json out = Json::array();
    for (const auto& pair : report.verdicts) {
        out.push_back(
            Json{{"gpus", {pair.a, pair.b}},
                 {"route", to_string(pair.route)},
                 {"verdict", to_string(pair.verdict)},
                 {"nvlink_bytes", pair.nvlink_bytes ? Json(*pair.nvlink_bytes) : Json(nullptr)},
                 {"reason", pair.reason}});
    }
    return out;
}

Json gate_to_json(const WatchReport& report) {
    if (!report.gate) {
        return nullptr;
    }
    return Json{{"profile", report.gate->profile},
                {"p2p", report.gate->p2p},
                {"rule", report.gate->rule},
                {"reason", report.gate->reason}};
}

}  // namespace

Json watch_to_json(const WatchReport& report) {
    Json findings = Json::array();
    for (const auto& finding : report.findings) {
        findings.push_back(report::doctor::finding_to_json(finding));
    }
    return Json{{"schema", "peergate.watch/v1"},
                {"command", report.command.empty() ? Json(nullptr) : Json(report.command)},
                {"exit_status", report.exit_status ? Json(*report.exit_status) : Json(nullptr)},
                {"seconds", report.seconds},
                {"interval_ms", report.interval_ms},
                {"rounds", report.totals.rounds},
                {"gate", gate_to_json(report)},
                {"sampling",
                 Json{{"error", or_null(report.sampling_error)},
                      {"stopped", or_null(report.sampling_stopped)},
                      {"cpu_seconds", report.sampler_cpu_seconds},
                      {"start_delay_s", report.start_delay_s}}},
                {"gpus", gpus_to_json(report)},
                {"pairs", pairs_to_json(report)},
                {"verdicts", verdicts_to_json(report)},
                {"findings", std::move(findings)}};
}

}  // namespace peergate::report::watch
