// SPDX-License-Identifier: Apache-2.0
#include "report/fleet/html.hpp"

#include "report/doctor/html.hpp"
#include "report/fleet/render.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace peergate::report::fleet {

namespace {

using report::doctor::html_escape;

// The properties of the node table, as judge_fleet names them, and their headings.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kColumns{{
    {"gpus", "GPUs"},
    {"gpu_model", "GPU model"},
    {"topology", "topology"},
    {"p2p", "P2P"},
    {"iommu", "IOMMU"},
    {"version", "peergate"},
    {"driver", "driver"},
    {"kernel", "kernel"},
    {"nics", "NICs"},
}};

std::string node_link(const std::string& node) {
    return fmt::format("<a href=\"#{}\">{}</a>", node_anchor(node), html_escape(node));
}

std::string issues_html(const policy::fleet::FleetReport& report) {
    if (report.issues.empty()) {
        return "<h2>Issues</h2>\n<p>None: every node answered, healthy and like its peers.</p>\n";
    }
    std::string out = "<h2>Issues</h2>\n<ul>\n";
    for (const auto& issue : report.issues) {
        std::vector<std::string> links;
        for (const auto& node : issue.nodes) {
            links.push_back(node_link(node));
        }
        out += fmt::format("<li class=\"{0}\"><b>{1}</b> [{0}]: {2}{3}</li>\n",
                           html_escape(issue.severity),
                           html_escape(issue.code),
                           html_escape(issue.message),
                           links.empty() ? "" : " (" + util::join(links, ", ") + ")");
    }
    return out + "</ul>\n";
}

std::string majority_value(const policy::fleet::FleetMajority& m, std::string_view property) {
    const std::array<std::pair<std::string_view, const std::string*>, 9> values{{
        {"gpus", &m.gpus},
        {"gpu_model", &m.gpu_model},
        {"topology", &m.topology},
        {"p2p", &m.p2p},
        {"iommu", &m.iommu},
        {"version", &m.version},
        {"driver", &m.driver},
        {"kernel", &m.kernel},
        {"nics", &m.nics},
    }};
    for (const auto& [name, value] : values) {
        if (name == property && property == "topology") {
            return m.topology.empty() ? "no majority" : topology_summary(m.matrix);
        }
        if (name == property) {
            return value->empty() ? "no majority" : *value;
        }
    }
    return "";
}

std::string majority_html(const policy::fleet::FleetReport& report) {
    std::string out = "<h2>What most nodes report</h2>\n<div class=\"scroll\"><table>\n";
    for (const auto& [property, heading] : kColumns) {
        out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n",
                           heading,
                           html_escape(majority_value(report.majority, property)));
    }
    return out + "</table></div>\n";
}

std::string nodes_html(const policy::fleet::FleetReport& report) {
    std::string out =
        "<h2>Nodes</h2>\n<div class=\"scroll\"><table>\n<tr><th>node</th><th>verdict</th>"
        "<th>state</th>";
    for (const auto& [property, heading] : kColumns) {
        out += fmt::format("<th>{}</th>", heading);
    }
    out += "</tr>\n";
    for (const auto& view : report.nodes) {
        const auto& node = view.node;
        out += fmt::format("<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td>",
                           node_link(node.node),
                           node.verdict == "healthy" ? "healthy" : "problems",
                           html_escape(node.verdict),
                           html_escape(node.state.empty() ? "—" : node.state));
        for (const auto& [property, heading] : kColumns) {
            const bool differs =
                std::find(view.differs.begin(), view.differs.end(), property) != view.differs.end();
            const std::string value =
                property == "topology" ? topology_summary(node.matrix)
                                       : policy::fleet::fleet_property(node, std::string(property));
            out += fmt::format("<td{}>{}</td>",
                               differs ? " class=\"differs\"" : "",
                               html_escape(value.empty() ? "not read" : value));
        }
        out += "</tr>\n";
    }
    return out + "</table></div>\n";
}

// Per link class: the fleet's median P2P rate, and each node's slowest pair of the class, red
// where it is under half the median (the fleet_bandwidth_outlier findings).
std::string bandwidth_html(const policy::fleet::FleetReport& report) {
    if (report.bandwidth.empty()) {
        return "";
    }
    std::string out =
        "<h2>Bandwidth by link class</h2>\n<div class=\"scroll\"><table>\n<tr><th>link</th>"
        "<th>median P2P GB/s</th><th>pairs</th><th>nodes</th><th>slowest pair per node</th></tr>\n";
    for (const auto& c : report.bandwidth) {
        std::vector<std::string> slowest;
        for (const auto& view : report.nodes) {
            const model::FleetPairRate* low = nullptr;
            for (const auto& rate : view.node.bandwidth) {
                if (rate.link == c.link && (low == nullptr || rate.p2p_gbps < low->p2p_gbps)) {
                    low = &rate;
                }
            }
            if (low != nullptr) {
                slowest.push_back(fmt::format("<span class=\"{}\">{} GPU{}→GPU{} {:.1f}</span>",
                                              low->p2p_gbps < c.median_gbps / 2 ? "error" : "",
                                              node_link(view.node.node),
                                              low->src,
                                              low->dst,
                                              low->p2p_gbps));
            }
        }
        out += fmt::format("<tr><td>{}</td><td>{:.1f}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                           html_escape(c.link),
                           c.median_gbps,
                           c.samples,
                           c.nodes,
                           util::join(slowest, "; "));
    }
    return out + "</table></div>\n";
}

std::string node_section(const policy::fleet::FleetNodeView& view) {
    const auto& node = view.node;
    std::string out = fmt::format(
        "<h3 id=\"{}\">{}</h3>\n<p>{} · read from {}{}</p>\n",
        node_anchor(node.node),
        html_escape(node.node),
        html_escape(node.verdict),
        html_escape(node.source),
        view.differs.empty()
            ? ""
            : " · differs from most nodes in " + html_escape(util::join(view.differs, ", ")));
    if (node.findings.empty()) {
        return out + "<p>No findings.</p>\n";
    }
    out += "<ul>\n";
    for (const auto& f : node.findings) {
        out += fmt::format("<li class=\"{0}\"><b>{1}</b> [{0}]: {2}</li>\n",
                           html_escape(f.severity),
                           html_escape(f.code),
                           html_escape(f.message));
    }
    return out + "</ul>\n";
}

}  // namespace

std::string node_anchor(const std::string& node) {
    std::string anchor = "node-" + node;
    for (std::size_t k = 5; k < anchor.size(); ++k) {
        const auto c = static_cast<unsigned char>(anchor[k]);
        if (!std::isalnum(c) && c != '_' && c != '.' && c != '-') {
            anchor[k] = '_';
        }
    }
    return anchor;
}

std::string fleet_to_html(const policy::fleet::FleetReport& report) {
    const char* verdict = report.failed ? "problems" : "healthy";
    std::string out = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>peergate fleet: {0}</title>\n<style>{1}</style>\n</head>\n<body>\n"
        "<h1>peergate fleet: <span class=\"{0}\">{0}</span></h1>\n<p>{2} nodes answered.</p>\n",
        verdict,
        report::doctor::html_page_style(),
        report.nodes.size());
    out +=
        issues_html(report) + nodes_html(report) + bandwidth_html(report) + majority_html(report);
    out += "<h2>Each node's findings</h2>\n";
    for (const auto& view : report.nodes) {
        out += node_section(view);
    }
    return out + "</body>\n</html>\n";
}

}  // namespace peergate::report::fleet
