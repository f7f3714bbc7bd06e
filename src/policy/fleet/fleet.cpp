// SPDX-License-Identifier: Apache-2.0
#include "policy/fleet/fleet.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

namespace peergate::policy::fleet {

namespace {

struct Property {
    const char* name;
    const char* severity;  // of a node that differs from the majority
    bool may_be_unread;    // "" is "not read" (older records): such nodes are not judged
};

// A different topology, GPU count, NIC list or P2P answer means a node lost hardware or a
// setting; a different IOMMU mode, model, version, NVIDIA driver or kernel may be intended (a
// rolling upgrade), so it is a warning.
constexpr std::array<Property, 9> kProperties{{{"gpus", "error", false},
                                               {"topology", "error", false},
                                               {"p2p", "error", false},
                                               {"nics", "error", true},
                                               {"gpu_model", "warning", false},
                                               {"iommu", "warning", false},
                                               {"version", "warning", false},
                                               {"driver", "warning", true},
                                               {"kernel", "warning", true}}};

std::string matrix_text(const std::vector<std::vector<std::string>>& matrix) {
    std::vector<std::string> rows;
    for (const auto& row : matrix) {
        rows.push_back(util::join(row, ","));
    }
    return util::join(rows, ";");
}

// The pairs where `node`'s matrix differs from the majority's, at most four, for the message.
std::string matrix_differences(const model::FleetNode& node, const FleetMajority& majority) {
    if (node.matrix.size() != majority.matrix.size()) {
        return fmt::format(
            "{} GPUs in the matrix (fleet: {})", node.matrix.size(), majority.matrix.size());
    }
    std::vector<std::string> pairs;
    std::size_t count = 0;
    for (std::size_t a = 0; a < node.matrix.size(); ++a) {
        for (std::size_t b = a + 1; b < node.matrix.size(); ++b) {
            const auto& mine = node.matrix[a].size() > b ? node.matrix[a][b] : std::string("?");
            const auto& theirs =
                majority.matrix[a].size() > b ? majority.matrix[a][b] : std::string("?");
            if (mine != theirs && ++count <= 4) {
                pairs.push_back(fmt::format("GPU{}-GPU{} {} (fleet: {})", a, b, mine, theirs));
            }
        }
    }
    return util::join(pairs, ", ") + (count > 4 ? fmt::format(" and {} more", count - 4) : "");
}

// What `node` lacks and has beyond the majority's NICs: "lacks 0000:9a:00.0 mlx5_5".
std::string nic_differences(const model::FleetNode& node, const FleetMajority& majority) {
    std::vector<std::string> parts;
    const auto& mine = node.nics.value_or(std::vector<std::string>{});
    for (const auto& nic : majority.nic_list) {
        if (std::find(mine.begin(), mine.end(), nic) == mine.end()) {
            parts.push_back("lacks " + nic);
        }
    }
    for (const auto& nic : mine) {
        if (std::find(majority.nic_list.begin(), majority.nic_list.end(), nic) ==
            majority.nic_list.end()) {
            parts.push_back("has " + nic);
        }
    }
    return util::join(parts, "; ") + fmt::format(" (fleet: {} NICs)", majority.nic_list.size());
}

// How `node` differs in `property`: its value `mine` against the majority's `theirs`, or for
// the topology and the NICs, the pairs and NICs that differ.
std::string outlier_detail(const model::FleetNode& node,
                           const std::string& property,
                           const std::string& mine,
                           const std::string& theirs,
                           const FleetMajority& majority) {
    if (property == "topology") {
        return matrix_differences(node, majority);
    }
    if (property == "nics") {
        return nic_differences(node, majority);
    }
    return fmt::format("{} (fleet: {})", mine, theirs);
}

// The value more than half of the nodes report; with `skip_unread`, of the nodes that read
// it. nullopt when none did, or none has a majority; "" is a value where every node reads
// nothing (a fleet of nodes without GPUs has one topology, the empty one).
std::optional<std::string> majority_of(const std::vector<FleetNodeView>& nodes,
                                       const std::string& property,
                                       bool skip_unread = false) {
    std::map<std::string, std::size_t> counts;
    std::size_t voters = 0;
    for (const auto& view : nodes) {
        const auto value = fleet_property(view.node, property);
        if (!skip_unread || !value.empty()) {
            ++counts[value];
            ++voters;
        }
    }
    for (const auto& [value, count] : counts) {
        if (2 * count > voters) {
            return value;
        }
    }
    return std::nullopt;
}

void add(FleetReport& report,
         std::string code,
         std::string severity,
         std::vector<std::string> nodes,
         std::string message) {
    report.failed = report.failed || severity == "error";
    report.issues.push_back(
        {std::move(code), std::move(severity), std::move(nodes), std::move(message)});
}

// Repeated records of one node: the last one read stands.
std::vector<FleetNodeView> distinct_nodes(std::vector<model::FleetNode> nodes,
                                          FleetReport& report) {
    std::map<std::string, model::FleetNode> by_name;
    for (auto& node : nodes) {
        if (by_name.count(node.node) != 0) {
            add(report,
                "node_repeated",
                "warning",
                {node.node},
                fmt::format(
                    "{} answered more than once; the record at {} stands", node.node, node.source));
        }
        by_name[node.node] = std::move(node);
    }
    std::vector<FleetNodeView> out;
    for (auto& [name, node] : by_name) {
        out.push_back({std::move(node), {}});
    }
    return out;
}

void judge_health(FleetReport& report) {
    for (const auto& view : report.nodes) {
        const auto& node = view.node;
        if (node.verdict == "healthy") {
            continue;
        }
        std::vector<std::string> errors;
        for (const auto& finding : node.findings) {
            if (finding.severity == "error") {
                errors.push_back(finding.code);
            }
        }
        const bool inconclusive = node.verdict != "problems";
        add(report,
            inconclusive ? "node_inconclusive" : "node_problems",
            "error",
            {node.node},
            fmt::format("{}: the doctor's verdict is {}{}",
                        node.node,
                        node.verdict,
                        errors.empty() ? "" : " (" + util::join(errors, ", ") + ")"));
    }
}

FleetMajority majority_of_all(const std::vector<FleetNodeView>& nodes) {
    const auto of = [&](const char* property, bool skip_unread = false) {
        return majority_of(nodes, property, skip_unread).value_or("");
    };
    FleetMajority majority{.gpus = of("gpus"),
                           .gpu_model = of("gpu_model"),
                           .matrix = {},
                           .topology = of("topology"),
                           .p2p = of("p2p"),
                           .iommu = of("iommu"),
                           .version = of("version"),
                           .driver = of("driver", true),
                           .kernel = of("kernel", true),
                           .nics = of("nics", true),
                           .nic_list = {}};
    for (const auto& view : nodes) {
        if (!majority.topology.empty() && matrix_text(view.node.matrix) == majority.topology) {
            majority.matrix = view.node.matrix;
        }
        if (!majority.nics.empty() && fleet_property(view.node, "nics") == majority.nics) {
            majority.nic_list = *view.node.nics;
        }
    }
    return majority;
}

void judge_property(FleetReport& report, const Property& property) {
    const auto majority = majority_of(report.nodes, property.name, property.may_be_unread);
    const bool any_read =
        std::any_of(report.nodes.begin(), report.nodes.end(), [&](const FleetNodeView& view) {
            return !fleet_property(view.node, property.name).empty();
        });
    if (property.may_be_unread && !any_read) {
        return;  // no node read it: nothing to compare
    }
    if (!majority) {
        std::set<std::string> values;
        for (const auto& view : report.nodes) {
            values.insert(fleet_property(view.node, property.name));
        }
        add(report,
            "fleet_split",
            "warning",
            {},
            fmt::format("no {} is shared by more than half of the nodes ({} values): run the fleet "
                        "per partition of like nodes",
                        property.name,
                        values.size()));
        return;
    }
    for (auto& view : report.nodes) {
        const std::string mine = fleet_property(view.node, property.name);
        if (mine == *majority || (property.may_be_unread && mine.empty())) {
            continue;
        }
        view.differs.push_back(property.name);
        const std::string detail =
            outlier_detail(view.node, property.name, mine, *majority, report.majority);
        add(report,
            "fleet_outlier",
            property.severity,
            {view.node.node},
            fmt::format(
                "{}: {} differs from most nodes: {}", view.node.node, property.name, detail));
    }
}

// The bench rates the nodes sent, by link class: a pair far below its class is a warning.
void judge_rates(FleetReport& report) {
    std::vector<const model::FleetNode*> nodes;
    for (const auto& view : report.nodes) {
        nodes.push_back(&view.node);
    }
    auto judgement = judge_bandwidth(nodes);
    report.bandwidth = std::move(judgement.classes);
    for (auto& outlier : judgement.outliers) {
        add(report,
            "fleet_bandwidth_outlier",
            "warning",
            {outlier.node},
            std::move(outlier.message));
    }
}

}  // namespace

std::string fleet_property(const model::FleetNode& node, const std::string& property) {
    if (property == "gpus") {
        return std::to_string(node.gpu_names.size());
    }
    if (property == "gpu_model") {
        std::set<std::string> names(node.gpu_names.begin(), node.gpu_names.end());
        return util::join(std::vector<std::string>(names.begin(), names.end()), " + ");
    }
    if (property == "topology") {
        return matrix_text(node.matrix);
    }
    if (property == "p2p") {
        return node.p2p ? "allowed" : "vetoed";
    }
    if (property == "driver") {
        return node.driver;
    }
    if (property == "kernel") {
        return node.kernel;
    }
    if (property == "nics") {
        return !node.nics ? "" : node.nics->empty() ? "none" : util::join(*node.nics, ", ");
    }
    return property == "iommu" ? node.iommu : node.version;
}

FleetReport judge_fleet(std::vector<model::FleetNode> nodes,
                        const std::vector<std::string>& unreadable,
                        std::optional<int> expected) {
    FleetReport report;
    for (const auto& line : unreadable) {
        add(report, "record_unreadable", "error", {}, line);
    }
    report.nodes = distinct_nodes(std::move(nodes), report);
    const int answered = static_cast<int>(report.nodes.size());
    if (answered == 0 || (expected && answered < *expected)) {
        add(report,
            "nodes_missing",
            "error",
            {},
            expected ? fmt::format("{} of {} nodes answered", answered, *expected)
                     : std::string("no node answered"));
    }
    if (answered == 0) {
        return report;
    }
    judge_health(report);
    report.majority = majority_of_all(report.nodes);
    for (const auto& property : kProperties) {
        judge_property(report, property);
    }
    judge_rates(report);
    return report;
}

}  // namespace peergate::policy::fleet
