// SPDX-License-Identifier: Apache-2.0
#include "report/fleet/render.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::report::fleet {

namespace {

nlohmann::ordered_json null_if_empty(const std::string& text) {
    return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

nlohmann::ordered_json node_json(const policy::fleet::FleetNodeView& view) {
    const auto& node = view.node;
    return {{"node", node.node},
            {"hostname", node.hostname},
            {"source", node.source},
            {"gpus", node.gpu_names.size()},
            {"gpu_model", policy::fleet::fleet_property(node, "gpu_model")},
            {"verdict", node.verdict},
            {"p2p", node.p2p},
            {"rule", node.rule},
            {"state", null_if_empty(node.state)},
            {"iommu", node.iommu},
            {"version", node.version},
            {"driver", null_if_empty(node.driver)},
            {"kernel", null_if_empty(node.kernel)},
            {"nics", node.nics ? nlohmann::ordered_json(*node.nics) : nlohmann::ordered_json()},
            {"matrix", node.matrix},
            {"differs", view.differs}};
}

std::string row(std::string_view node,
                std::string_view gpus,
                std::string_view links,
                std::string_view p2p,
                std::string_view verdict,
                std::string_view differs) {
    const auto line = fmt::format(
        "{:<16} {:>4}  {:<16} {:<8} {:<13} {}", node, gpus, links, p2p, verdict, differs);
    return std::string(util::trim(line)) + "\n";
}

// Nodes whose doctor was not healthy or that an error names.
std::size_t failed_nodes(const policy::fleet::FleetReport& report) {
    std::size_t failed = 0;
    for (const auto& view : report.nodes) {
        const bool named =
            std::any_of(report.issues.begin(), report.issues.end(), [&](const auto& issue) {
                return issue.severity == "error" &&
                       std::find(issue.nodes.begin(), issue.nodes.end(), view.node.node) !=
                           issue.nodes.end();
            });
        failed += view.node.verdict != "healthy" || named ? 1U : 0U;
    }
    return failed;
}

}  // namespace

std::string topology_summary(const std::vector<std::vector<std::string>>& matrix) {
    std::vector<std::string> tokens;
    for (std::size_t a = 0; a < matrix.size(); ++a) {
        for (std::size_t b = a + 1; b < matrix[a].size(); ++b) {
            if (std::find(tokens.begin(), tokens.end(), matrix[a][b]) == tokens.end()) {
                tokens.push_back(matrix[a][b]);
            }
        }
    }
    std::sort(tokens.begin(), tokens.end());
    return matrix.empty() ? "unreadable" : tokens.empty() ? "one GPU" : util::join(tokens, "/");
}

// Per link class the nodes measured: the median P2P rate and how many pairs and nodes it is of.
nlohmann::ordered_json bandwidth_json(const std::vector<policy::fleet::FleetLinkClass>& classes) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& c : classes) {
        out.push_back({{"link", c.link},
                       {"median_p2p_gbps", c.median_gbps},
                       {"pairs", c.samples},
                       {"nodes", c.nodes}});
    }
    return out;
}

nlohmann::ordered_json fleet_to_json(const policy::fleet::FleetReport& report) {
    auto nodes = nlohmann::ordered_json::array();
    for (const auto& view : report.nodes) {
        nodes.push_back(node_json(view));
    }
    auto issues = nlohmann::ordered_json::array();
    for (const auto& issue : report.issues) {
        issues.push_back({{"code", issue.code},
                          {"severity", issue.severity},
                          {"nodes", issue.nodes},
                          {"message", issue.message}});
    }
    const auto& m = report.majority;
    return {
        {"schema", "peergate.fleet/v1"},
        {"verdict", report.failed ? "problems" : "healthy"},
        {"nodes", nodes},
        {"majority",
         {{"gpus", null_if_empty(m.gpus)},
          {"gpu_model", null_if_empty(m.gpu_model)},
          {"matrix",
           m.topology.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.matrix)},
          {"p2p", null_if_empty(m.p2p)},
          {"iommu", null_if_empty(m.iommu)},
          {"version", null_if_empty(m.version)},
          {"driver", null_if_empty(m.driver)},
          {"kernel", null_if_empty(m.kernel)},
          {"nics",
           m.nics.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(m.nic_list)}}},
        {"findings", issues},
        {"bandwidth", bandwidth_json(report.bandwidth)}};
}

std::string fleet_to_text(const policy::fleet::FleetReport& report) {
    std::string out = fmt::format(
        "Fleet: {} nodes answered, {} failed\n\n", report.nodes.size(), failed_nodes(report));
    out += row("node", "GPUs", "links", "P2P", "verdict", "differs in");
    for (const auto& view : report.nodes) {
        const auto& node = view.node;
        out += row(node.node,
                   std::to_string(node.gpu_names.size()),
                   topology_summary(node.matrix),
                   node.state == "unusable" ? "unusable"
                   : node.p2p               ? "allowed"
                                            : "vetoed",
                   node.verdict,
                   util::join(view.differs, ", "));
    }
    const auto& m = report.majority;
    if (!m.gpus.empty()) {
        out += fmt::format("\nMost nodes: {} GPUs ({}), links {}, {}P2P {}, IOMMU {}{}\n",
                           m.gpus,
                           m.gpu_model.empty() ? "models differ" : m.gpu_model,
                           topology_summary(m.matrix),
                           m.nics.empty() ? "" : fmt::format("{} NICs, ", m.nic_list.size()),
                           m.p2p.empty() ? "split" : m.p2p,
                           m.iommu.empty() ? "split" : m.iommu,
                           m.driver.empty() ? "" : ", NVIDIA driver " + m.driver);
    }
    for (const auto& c : report.bandwidth) {
        out += fmt::format("{}{}: median P2P {:.1f} GB/s over {} pairs on {} nodes\n",
                           &c == &report.bandwidth.front() ? "\nBandwidth by link class:\n" : "",
                           c.link,
                           c.median_gbps,
                           c.samples,
                           c.nodes);
    }
    if (!report.issues.empty()) {
        out += "\n";
    }
    for (const auto& issue : report.issues) {
        out += fmt::format("{:<8} {}: {}\n", issue.severity, issue.code, issue.message);
    }
    return out;
}

}  // namespace peergate::report::fleet
