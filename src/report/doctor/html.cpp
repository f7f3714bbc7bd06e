// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/html.hpp"

#include "model/link_label.hpp"
#include "report/doctor/machine_svg.hpp"
#include "report/doctor/pair_grid.hpp"

#include <fmt/format.h>

namespace peergate::report::doctor {

namespace {

// Readable at 1,400 px and on a phone, printable on A4, light or dark as the reader's system
// is (docs/doctor.md, "HTML"). The drawing's classes are machine_svg.cpp's.
constexpr std::string_view kStyle =
    ":root{--fg:#111;--bg:#fff;--line:#bbb;--ok:#dff2df;--nv:#d7ecff;--warn:#ffd9a0;--unv:#fff6c8;"
    "--bad:#ffd6d6;--off:#eee;--badfg:#b00;--warnfg:#a60}"
    "@media(prefers-color-scheme:dark){:root{--fg:#eee;--bg:#161616;--line:#555;--ok:#1d3b1d;--unv:"
    "#3a3717;"
    "--nv:#17324a;--warn:#4a3a14;--bad:#561d1d;--off:#2a2a2a;--badfg:#ff7b7b;--warnfg:#ffb84d}}"
    "body{font-family:system-ui,sans-serif;margin:1em 2vw;color:var(--fg);background:var(--bg)}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid var(--line);padding:.2em .5em;text-align:left;font-family:monospace}"
    ".scroll{overflow-x:auto}"
    ".error,.problems{color:var(--badfg)}.warning,.inconclusive{color:var(--warnfg)}"
    ".info{color:inherit;opacity:.8}.healthy{color:#2a2}"
    ".nvlink{background:var(--nv)}.reason{font-size:1.1em}"
    "svg.machine{max-width:100%;height:auto;font:12px system-ui,sans-serif}"
    "svg .t{font-weight:600;fill:var(--fg)}svg .d,svg .el{fill:var(--fg)}"
    "svg .m{font-size:11px}svg text.bad{fill:var(--badfg)}svg text.warn{fill:var(--warnfg)}"
    "svg rect{stroke:var(--line);fill:var(--bg)}svg rect.group{fill:none;stroke-dasharray:4 3}"
    "svg rect.gpu{fill:var(--ok)}svg rect.nic{fill:var(--nv)}svg rect.fabric{fill:var(--nv)}"
    "svg rect.bad{fill:var(--bad);stroke:var(--badfg)}svg rect.warn{fill:var(--warn)}"
    "svg line,svg path{fill:none;stroke:var(--fg)}svg .nv{stroke:#3a7bd5;stroke-width:3}"
    "svg .unread{stroke:var(--line);stroke-dasharray:3 3}"
    "svg .nv.down{stroke:var(--badfg);stroke-width:1.5;stroke-dasharray:5 3}"
    "svg .pcie{stroke:var(--line);stroke-width:1.5}"
    "svg path.problem{stroke-width:3}svg path.problem.bad{stroke:var(--badfg)}"
    "svg path.problem.warn{stroke:var(--warnfg);stroke-dasharray:6 3}"
    "td.pair{font-size:.8em;vertical-align:top;white-space:nowrap}"
    "@media(max-width:700px){svg.machine{max-width:none;width:860px}}td.lost{background:var(--bad)}"
    "td.slow{background:var(--warn)}td.unfinished{background:var(--warn);border:2px dashed "
    "var(--warnfg)}td.intact{background:var(--ok)}td.unverified{background:"
    "var(--unv)}td.off{background:var(--off)}td.self{background:var(--off)}"
    "td.contradiction{outline:3px solid var(--badfg);outline-offset:-3px}"
    "td.fewer{outline:2px dashed var(--warnfg);outline-offset:-3px}"
    ".legend span.pair{display:inline-block;padding:0 .4em;border:1px solid var(--line)}"
    ".legend span.lost{background:var(--bad)}.legend span.slow{background:var(--warn)}"
    ".legend span.unfinished{background:var(--warn);border:2px dashed var(--warnfg)}"
    ".legend span.intact{background:var(--ok)}.legend span.nvlink{background:var(--nv)}"
    ".legend span.unverified{background:var(--unv)}.legend span.off{background:var(--off)}"
    "code{white-space:pre-wrap}td.differs{background:var(--bad)}td.same{background:var(--ok)}"
    "@media print{@page{size:A4;margin:12mm}body{margin:0;font-size:9pt}.scroll{overflow:visible}"
    "svg.machine{width:100%}}";

std::string cell(std::string_view text, std::string_view css_class = "") {
    return css_class.empty()
               ? fmt::format("<td>{}</td>", html_escape(text))
               : fmt::format("<td class=\"{}\">{}</td>", css_class, html_escape(text));
}

// Errors first, then warnings, then information; each with its GPUs and its remedy.
std::string findings_html(const policy::doctor::DoctorReport& report) {
    std::string out = "<h2>Findings</h2>\n";
    for (const auto severity :
         {model::Severity::error, model::Severity::warning, model::Severity::info}) {
        std::string items;
        for (const auto& f : report.findings) {
            if (f.severity != severity) {
                continue;
            }
            items += fmt::format("<li class=\"{1}\"><b>{0}</b>{2}: {3}",
                                 html_escape(f.id()),
                                 model::to_string(severity),
                                 f.gpus.empty() ? "" : " (" + model::gpu_words(f.gpus) + ")",
                                 html_escape(f.message));
            if (!f.remedy.empty()) {
                items += "<br>remedy: <code>" + html_escape(f.remedy) + "</code>";
            }
            items += "</li>\n";
        }
        if (!items.empty()) {
            out += fmt::format(
                "<h3 class=\"{0}\">{0}</h3>\n<ul>\n{1}</ul>\n", model::to_string(severity), items);
        }
    }
    return report.findings.empty() ? out + "<p>None.</p>\n" : out;
}

// The verdict's one-line reason, the first error finding (else the first warning), with its
// remedy: what the person at the broken box reads first.
std::string reason_html(const policy::doctor::DoctorReport& report) {
    for (const auto severity : {model::Severity::error, model::Severity::warning}) {
        for (const auto& f : report.findings) {
            if (f.severity == severity) {
                return fmt::format("<p class=\"reason {}\">{}</p>\n{}",
                                   model::to_string(severity),
                                   html_escape(f.message),
                                   f.remedy.empty() ? ""
                                                    : "<p>remedy: <code>" + html_escape(f.remedy) +
                                                          "</code></p>\n");
            }
        }
    }
    return "";
}

// What may be scheduled here, as every export says it (the assessment's node state).
std::string node_html(const policy::assess::Assessment& assessment) {
    const auto& node = assessment.node;
    std::string_view words = "P2P vetoed: GPU jobs start with P2P off";
    std::string_view css = "warning";
    if (node.state == policy::doctor::NodeState::p2p_allowed) {
        words = "P2P allowed";
        css = "healthy";
    } else if (node.state == policy::doctor::NodeState::unusable) {
        words = "unusable: no CUDA program can start here";
        css = "error";
    }
    return fmt::format("<p class=\"node {}\" id=\"node-state\" data-state=\"{}\">Node: {}{}</p>\n",
                       css,
                       policy::doctor::to_string(node.state),
                       words,
                       node.code.empty() ? "" : " (" + html_escape(node.code) + ")");
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
    out += "<th>name</th><th>PCI bus id</th><th>CPU affinity</th><th>NUMA node</th></tr>\n";
    for (std::size_t p = 0; p < t.size(); ++p) {
        out += fmt::format("<tr><th>GPU{}</th>", t.gpus[p].index);
        for (std::size_t q = 0; q < t.size(); ++q) {
            const auto& label = t.matrix[p][q];
            out += cell(label.to_token(), label.is_nvlink() ? "nvlink" : "");
        }
        const auto& pci = t.gpus[p].pci;
        const auto& numa = t.gpus[p].numa_node;
        out += cell(t.gpus[p].name) + cell(pci ? pci->to_nvml() : "") +
               cell(t.gpus[p].cpu_affinity) + cell(numa ? std::to_string(*numa) : "") + "</tr>\n";
    }
    return out + "</table>\n";
}

std::string rate(const std::optional<double>& gbps) {
    return gbps ? fmt::format("{:.1f}", *gbps) : "";
}

bool is_nvlink(const std::string& token) {
    const auto label = model::LinkLabel::parse(token);
    return label && label->is_nvlink();
}

std::string pair_row(const policy::doctor::PairLayers& pair) {
    std::string row = "<tr>" + cell(fmt::format("GPU{} -> GPU{}", pair.src, pair.dst)) +
                      cell(pair.label, is_nvlink(pair.label) ? "nvlink" : "");
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
        "<h2>Every layer per ordered pair</h2>\n<div class=\"scroll\"><table>\n<tr><th>pair</th>"
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
    return out + "</table></div>\n";
}

}  // namespace

std::string_view html_page_style() {
    return kStyle;
}

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
                           const policy::doctor::DoctorReport& report,
                           const policy::assess::Assessment& assessment) {
    const auto verdict = to_string(report.verdict);
    std::string out = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>peergate doctor: {0}</title>\n<style>{1}</style>\n</head>\n<body>\n"
        "<h1>peergate doctor: <span class=\"{0}\">{0}</span></h1>\n",
        verdict,
        kStyle);
    out += node_html(assessment) + reason_html(report) + "<div class=\"scroll\">" +
           machine_svg(input, report, assessment) + "</div>\n" + pair_grid_html(input, assessment) +
           bandwidth_html(input);
    out += findings_html(report) + runtime_html(input);
    if (const auto* topology = input.discovery.described()) {
        out += matrix_html(*topology);
    }
    out += pairs_html(input);
    return out + "</body>\n</html>\n";
}

}  // namespace peergate::report::doctor
