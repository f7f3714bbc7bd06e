// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/pair_grid.hpp"

#include "model/link_label.hpp"
#include "report/doctor/html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace peergate::report::doctor {

namespace {

using policy::doctor::PairLayers;

using policy::assess::PairAssessment;
using policy::assess::ProbeSource;

std::string or_dash(std::string_view token) {
    return token.empty() ? "—" : std::string(token);
}

std::string rate(const std::optional<double>& gbps) {
    return gbps ? fmt::format("{:.1f}", *gbps) : "—";
}

// "probe ok (this run)", "probe data_lost (cached)", "probe not run".
std::string probe_line(const PairAssessment& state) {
    if (!state.verdict) {
        return "probe not run";
    }
    return fmt::format("probe {} ({})",
                       model::to_string(*state.verdict),
                       state.probe == ProbeSource::cached ? "cached, this boot" : "this run");
}

// The layers in four short lines: topology, NVML read/write, CUDA, probe, bench.
std::string cell_lines(const PairLayers& pair, const PairAssessment& state) {
    const auto& cuda = pair.cuda_can_access_peer;
    std::string out = fmt::format("<b>{}</b><br>NVML r/w {}/{}<br>CUDA {}",
                                  html_escape(or_dash(pair.label)),
                                  html_escape(or_dash(pair.nvml[0])),
                                  html_escape(or_dash(pair.nvml[1])),
                                  !cuda   ? "—"
                                  : *cuda ? "yes"
                                          : "no");
    out += "<br>" + html_escape(probe_line(state));
    if (!pair.probe_path.empty()) {
        out += fmt::format(" ({}{})",
                           html_escape(pair.probe_path),
                           pair.probe_gbps ? fmt::format(", {:.1f} GB/s", *pair.probe_gbps) : "");
    }
    // Each path that did not pass, by name: "copies pass, SM stores fail" is the case to see.
    for (const auto& v : state.paths) {
        if (v.verdict != model::PairVerdict::ok) {
            out += fmt::format("<br>{} {}",
                               html_escape(std::string(model::to_string(v.path))),
                               html_escape(std::string(model::to_string(v.verdict))));
        }
    }
    if (pair.p2p_gbps || pair.staged_gbps) {
        out += fmt::format("<br>bench {} / {} GB/s", rate(pair.p2p_gbps), rate(pair.staged_gbps));
        if (pair.p2p_gbps && pair.staged_gbps && *pair.staged_gbps > 0) {
            out += fmt::format(" ({:.2f}×)", *pair.p2p_gbps / *pair.staged_gbps);
        }
    }
    return out;
}

// `most_links`: the most NVLinks any pair has; a pair with fewer has links down or a
// narrower bridge, and is outlined so an NV16 among NV18s stands out.
std::string cell(const PairLayers& pair, const PairAssessment& state, int most_links) {
    // Capability said yes, the data said no: the case the whole report is about.
    const bool contradiction = state.contradiction();
    const auto label = model::LinkLabel::parse(pair.label);
    const bool fewer = label && label->is_nvlink() && label->nvlinks < most_links;
    return fmt::format("<td class=\"pair {}{}{}\" title=\"GPU{} to GPU{}\">{}{}{}</td>",
                       css_class(state.state),
                       contradiction ? " contradiction" : "",
                       fewer ? " fewer" : "",
                       pair.src,
                       pair.dst,
                       contradiction ? "<i>capabilities say yes, data lost</i><br>" : "",
                       cell_lines(pair, state),
                       fewer ? fmt::format("<br><i>fewer links than NV{}</i>", most_links) : "");
}

int most_nvlinks(const std::vector<PairLayers>& pairs) {
    int most = 0;
    for (const auto& pair : pairs) {
        if (const auto label = model::LinkLabel::parse(pair.label); label && label->is_nvlink()) {
            most = std::max(most, label->nvlinks);
        }
    }
    return most;
}

const PairLayers* find_pair(const policy::doctor::DoctorInput& input, int src, int dst) {
    for (const auto& pair : input.pairs) {
        if (pair.src == src && pair.dst == dst) {
            return &pair;
        }
    }
    return nullptr;
}

constexpr std::string_view kLegend =
    "<p class=\"legend\"><span class=\"pair lost\">data lost</span> "
    "<span class=\"pair unfinished\">probe error: could not finish</span> "
    "<span class=\"pair slow\">P2P slower than staged</span> "
    "<span class=\"pair intact\">PCIe, probed intact</span> "
    "<span class=\"pair nvlink\">NVLink</span> "
    "<span class=\"pair unverified\">PCIe, capabilities yes, no data moved</span> "
    "<span class=\"pair off\">peer access off: staged through host memory</span></p>\n"
    "<p class=\"legend\">NVML status (nvmlDeviceGetP2PStatus, read and write): <b>OK</b> "
    "supported; <b>CNS</b> chipset not supported; <b>GNS</b> GPU not supported; <b>NS</b> not "
    "supported; <b>TNS</b> topology not supported; <b>DR</b> disabled by registry key; "
    "<b>U</b> unknown; <b>—</b> not read. CUDA: cuDeviceCanAccessPeer. probe: the data moved "
    "and compared (<b>ok</b>, <b>data_lost</b>, <b>error</b>; <b>not run</b> "
    "where no probe ran this run or earlier on this boot; <b>cached</b> where the verdict "
    "cache gave it), over the <b>direct</b> peer path or <b>staged</b> through host memory. "
    "bench: P2P / staged GB/s from --bandwidth and their ratio.</p>\n";

// One bandwidth cell: P2P, staged and their ratio, shaded by the P2P rate against the fastest
// pair's (darker is faster), amber where P2P is slower than staging.
std::string rate_cell(const PairLayers& pair, double fastest) {
    if (!pair.p2p_gbps && !pair.staged_gbps) {
        return "<td>—</td>";
    }
    const bool slower = pair.p2p_gbps && pair.staged_gbps && *pair.p2p_gbps < *pair.staged_gbps;
    const double share = pair.p2p_gbps && fastest > 0 ? *pair.p2p_gbps / fastest : 0;
    const std::string shade =
        slower ? "" : fmt::format(" style=\"background:hsl(210 70% {:.0f}%)\"", 92 - 40 * share);
    std::string ratio;
    if (pair.p2p_gbps && pair.staged_gbps && *pair.staged_gbps > 0) {
        ratio = fmt::format("<br>{:.2f}×", *pair.p2p_gbps / *pair.staged_gbps);
    }
    return fmt::format("<td class=\"pair{}\"{}>{} / {}{}</td>",
                       slower ? " slow" : "",
                       shade,
                       rate(pair.p2p_gbps),
                       rate(pair.staged_gbps),
                       ratio);
}

// One table cell per ordered pair of the GPUs the pairs name, source rows and destination
// columns, `cell(pair)` filling each; the diagonal is grey.
template <typename Cell>
std::string pair_table(const policy::doctor::DoctorInput& input,
                       std::string_view heading,
                       Cell&& cell) {
    std::set<int> gpus;
    for (const auto& pair : input.pairs) {
        gpus.insert(pair.src);
        gpus.insert(pair.dst);
    }
    std::string out = fmt::format(
        "<h2>{}</h2>\n<div class=\"scroll\"><table class=\"grid\">\n<tr><th></th>", heading);
    for (int gpu : gpus) {
        out += fmt::format("<th>to GPU{}</th>", gpu);
    }
    out += "</tr>\n";
    for (int src : gpus) {
        out += fmt::format("<tr><th>GPU{}</th>", src);
        for (int dst : gpus) {
            const PairLayers* pair = src == dst ? nullptr : find_pair(input, src, dst);
            out += pair != nullptr ? cell(*pair) : "<td class=\"self\"></td>";
        }
        out += "</tr>\n";
    }
    return out + "</table></div>\n";
}

}  // namespace

std::string bandwidth_html(const policy::doctor::DoctorInput& input) {
    double fastest = 0;
    for (const auto& pair : input.pairs) {
        fastest = std::max(fastest, pair.p2p_gbps.value_or(0));
    }
    if (fastest <= 0) {
        return "";
    }
    return pair_table(input, "Bandwidth: P2P / staged GB/s and their ratio", [&](const auto& pair) {
        return rate_cell(pair, fastest);
    });
}

std::string_view css_class(policy::assess::PairState state) {
    using enum policy::assess::PairState;
    switch (state) {
        case nvlink:
            return "nvlink";
        case pcie_proven:
            return "intact";
        case pcie_unverified:
            return "unverified";
        case staged_only:
            return "off";
        case slower_than_staged:
            return "slow";
        case probe_error:
            return "unfinished";
        case data_lost:
            return "lost";
    }
    return "lost";
}

std::string pair_grid_html(const policy::doctor::DoctorInput& input,
                           const policy::assess::Assessment& assessment) {
    if (input.pairs.empty()) {
        return "";
    }
    const int most_links = most_nvlinks(input.pairs);
    return pair_table(input,
                      "Pairs: source (row) to destination (column)",
                      [&](const auto& pair) {
                          const auto* state = assessment.pair(pair.src, pair.dst);
                          return state != nullptr ? cell(pair, *state, most_links)
                                                  : std::string("<td></td>");
                      }) +
           std::string(kLegend);
}

}  // namespace peergate::report::doctor
