// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/html.hpp"

#include <fmt/format.h>

namespace peergate::report::doctor {

namespace {

constexpr std::string_view kStyle =
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;font-family:monospace}"
    ".error{color:#a00}.warning{color:#a60}.info{color:#555}"
    ".healthy{color:#070}.problems{color:#a00}.inconclusive{color:#a60}"
    ".nvlink{background:#e6f4e6}";

std::string cell(std::string_view text, std::string_view css_class = "") {
    return css_class.empty()
               ? fmt::format("<td>{}</td>", html_escape(text))
               : fmt::format("<td class=\"{}\">{}</td>", css_class, html_escape(text));
}

std::string findings_html(const policy::doctor::DoctorReport& report) {
    std::string out = "<h2>Findings</h2>\n<ul>\n";
    for (const auto& f : report.findings) {
        const auto severity = model::to_string(f.severity);
        out += fmt::format("<li class=\"{}\"><b>[{}] {}</b>: {}",
                           severity,
                           severity,
                           html_escape(f.code),
                           html_escape(f.message));
        if (!f.remedy.empty()) {
            out += "<br>remedy: " + html_escape(f.remedy);
        }
        out += "</li>\n";
    }
    return out + "</ul>\n";
}

std::string runtime_html(const policy::doctor::DoctorInput& input) {
    std::string out = "<h2>Runtime and host</h2>\n<table>\n";
    for (const auto& part : input.parts) {
        out += "<tr>" + cell(part.what) + cell(part.found ? "found" : "missing") +
               cell(part.detail) + "</tr>\n";
    }
    const auto& host = input.host;
    out += "<tr>" + cell("IOMMU") + cell(model::to_string(host.iommu)) + cell(host.iommu_detail) +
           "</tr>\n";
    out += "<tr>" + cell("hypervisor") +
           cell(!host.hypervisor   ? "unknown"
                : *host.hypervisor ? "yes"
                                   : "no (bare metal)") +
           cell(host.kernel_cmdline) + "</tr>\n";
    out +=
        "<tr>" + cell("NVIDIA kernel module") +
        cell(host.nvidia_module ? host.nvidia_module->version : "not loaded or unread") +
        cell(host.nvidia_module ? std::string(model::to_string(host.nvidia_module->flavour)) : "") +
        "</tr>\n";
    out += "<tr>" + cell("kernel") +
           cell(host.kernel_release.empty() ? "unread" : host.kernel_release) + cell("") +
           "</tr>\n";
    out += "<tr>" + cell("kernel log") + cell(std::to_string(input.kernel_events.size())) +
           cell(input.kernel_log_source) + "</tr>\n";
    return out + "</table>\n";
}

std::string matrix_html(const model::Topology& t) {
    std::string out = "<h2>Topology</h2>\n<table>\n<tr><th></th>";
    for (const auto& gpu : t.gpus) {
        out += fmt::format("<th>GPU{}</th>", gpu.index);
    }
    out += "<th>name</th><th>PCI bus id</th></tr>\n";
    for (std::size_t p = 0; p < t.size(); ++p) {
        out += fmt::format("<tr><th>GPU{}</th>", t.gpus[p].index);
        for (std::size_t q = 0; q < t.size(); ++q) {
            const auto& label = t.matrix[p][q];
            out += cell(label.to_token(), label.is_nvlink() ? "nvlink" : "");
        }
        const auto& pci = t.gpus[p].pci;
        out += cell(t.gpus[p].name) + cell(pci ? pci->to_nvml() : "") + "</tr>\n";
    }
    return out + "</table>\n";
}

std::string rate(const std::optional<double>& gbps) {
    return gbps ? fmt::format("{:.1f}", *gbps) : "";
}

std::string pair_row(const policy::doctor::PairLayers& pair) {
    std::string row = "<tr>" + cell(fmt::format("GPU{} -> GPU{}", pair.src, pair.dst)) +
                      cell(pair.label, pair.label.rfind("NV", 0) == 0 ? "nvlink" : "");
    for (const auto& token : pair.nvml) {
        row += cell(token.empty() ? "?" : token);
    }
    const auto& cuda = pair.cuda_can_access_peer;
    row += cell(!cuda ? "?" : *cuda ? "yes" : "no");
    row += cell(pair.probe) + cell(pair.probe_path) + cell(rate(pair.probe_gbps)) + cell(pair.acs);
    return row + cell(rate(pair.p2p_gbps)) + cell(rate(pair.staged_gbps)) + "</tr>\n";
}

std::string pairs_html(const policy::doctor::DoctorInput& input) {
    if (input.pairs.empty()) {
        return "";
    }
    std::string out =
        "<h2>Peer access per ordered pair</h2>\n<table>\n<tr><th>pair</th>"
        "<th>topology</th>";
    for (auto caps : policy::doctor::kP2pCaps) {
        out += fmt::format("<th>NVML {}</th>", caps);
    }
    out +=
        "<th>CUDA can access peer</th><th>probe</th><th>copy path</th><th>probe GB/s</th>"
        "<th>ACS</th><th>bench P2P GB/s</th><th>bench staged GB/s</th></tr>\n";
    for (const auto& pair : input.pairs) {
        out += pair_row(pair);
    }
    for (const auto& note : input.layer_notes) {
        out += "<tr><td colspan=\"15\">note: " + html_escape(note) + "</td></tr>\n";
    }
    return out + "</table>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string doctor_to_html(const policy::doctor::DoctorInput& input,
                           const policy::doctor::DoctorReport& report) {
    const auto verdict = to_string(report.verdict);
    std::string out = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<title>peergate doctor: {0}</title>\n<style>{1}</style>\n</head>\n<body>\n"
        "<h1>peergate doctor: <span class=\"{0}\">{0}</span></h1>\n",
        verdict,
        kStyle);
    out += findings_html(report) + runtime_html(input);
    if (const auto* topology = input.discovery.described()) {
        out += matrix_html(*topology);
    }
    out += pairs_html(input);
    return out + "</body>\n</html>\n";
}

}  // namespace peergate::report::doctor
