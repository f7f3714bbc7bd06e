// SPDX-License-Identifier: Apache-2.0
#include "report/placement/text.hpp"

#include "report/placement/launch.hpp"
#include "report/topology/text.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::report::placement {

namespace {

std::string ints(const std::vector<int>& values) {
    return values.empty() ? "none" : util::join_ints(values, ",");
}

std::string weight(const policy::placement::PlacementResult& result,
                   policy::placement::Weight value) {
    if (value == policy::placement::kUnlimited) {
        return "unlimited";
    }
    return result.measured
               ? fmt::format("{:.2f} GB/s",
                             static_cast<double>(value) /
                                 static_cast<double>(policy::placement::kBandwidthScale))
               : std::to_string(value);
}

// "The weakest link is optimal; <what> is <got>, at most p % below the best possible".
std::string term_shortfall(const policy::placement::PlacementResult& result,
                           const char* what,
                           policy::placement::Weight got,
                           policy::placement::Weight most) {
    const std::string optimal = fmt::format("the weakest link is optimal ({})",
                                            weight(result, result.objective.min_bottleneck));
    if (most == policy::placement::kUnlimited || most <= 0) {
        return fmt::format("{}; {} ({}) is not proven best", optimal, what, weight(result, got));
    }
    return fmt::format("{}; {} is {}, at most {:.1f} % below the best possible (no more than {})",
                       optimal,
                       what,
                       weight(result, got),
                       100.0 * static_cast<double>(most - got) / static_cast<double>(most),
                       weight(result, most));
}

// How far the answer may be from the best, told on the first term not proven.
std::string shortfall(const policy::placement::PlacementResult& result) {
    const auto open = policy::placement::open_term(result).value_or("tie_break");
    const auto& found = result.objective;
    const auto& bound = result.bound;
    if (open == "min_bottleneck") {
        return fmt::format("the weakest link is within {} of the best possible {}",
                           weight(result, result.gap),
                           weight(result, result.upper_bound));
    }
    if (open == "sum_bottleneck") {
        return term_shortfall(result,
                              "the sum of the groups' weakest links",
                              found.sum_bottleneck,
                              bound.sum_bottleneck);
    }
    if (open == "sum_pair_weight") {
        return term_shortfall(
            result, "the sum of pair weights", found.sum_pair_weight, bound.sum_pair_weight);
    }
    if (open == "numa_spans") {
        return fmt::format(
            "the weakest links and the pair weights are optimal; the groups span {} NUMA nodes "
            "in all, where {} may be possible",
            found.numa_spans,
            bound.numa_spans);
    }
    return "the score is optimal; a placement of smaller GPU indices may score the same";
}

std::string headline(const policy::placement::PlacementResult& result) {
    std::string how = result.exact ? fmt::format("optimal ({})", to_string(result.method))
                                   : fmt::format("heuristic: {}", shortfall(result));
    if (result.nodes > 0) {
        how += fmt::format(", {} search nodes", result.nodes);
    }
    return fmt::format("{} group(s) of {} GPUs, {}\n", result.count, result.size, how);
}

std::string group_text(const policy::placement::PlacementResult& result,
                       const model::Topology& topology,
                       const policy::placement::PlacedGroup& group,
                       std::size_t number,
                       const std::string& profile) {
    std::string bottleneck = "none (one GPU)";
    if (group.bottleneck_label && group.bottleneck_pair) {
        bottleneck = fmt::format("{} between GPU{} and GPU{} (weight {})",
                                 group.bottleneck_label->to_token(),
                                 group.bottleneck_pair->first,
                                 group.bottleneck_pair->second,
                                 weight(result, *group.bottleneck));
    }
    std::string numa = group.numa_nodes.empty() ? "unknown" : ints(group.numa_nodes);
    if (group.numa_unknown && !group.numa_nodes.empty()) {
        numa += " and unknown";
    }
    const auto launch = launch_for(topology, group, profile);
    std::string out = fmt::format(
        "group {}{}: GPUs {}\n", number, group.required ? " (required)" : "", ints(group.gpus));
    out += fmt::format("  bottleneck: {}\n  NUMA nodes: {}\n", bottleneck, numa);
    out += fmt::format("  env:  {}\n", launch.env);
    out += fmt::format(
        "  cpu:  {}\n",
        launch.cpu.empty() ? "unknown (no NUMA node or CPU affinity reported)" : launch.cpu);
    out += fmt::format("  exec: {}\n", launch.exec);
    return out;
}

// "  nics: GPU4 mlx5_0 (PIX), GPU5 mlx5_0 (PIX)": where the group's network traffic
// (GPUDirect RDMA) would leave; nothing where the host has no NIC or sysfs was not read.
std::string group_nics_text(const policy::placement::NicAffinity& nics,
                            const model::Topology& topology,
                            const policy::placement::PlacedGroup& group) {
    if (std::none_of(nics.nics.begin(), nics.nics.end(), [](const model::Nic& nic) {
            return !nic.physical_function;
        })) {
        return "";
    }
    std::vector<std::string> parts;
    for (int id : group.gpus) {
        if (const auto position = topology.position_of(id)) {
            parts.push_back(report::topology::nearest_nic_text(nics, *position, id));
        }
    }
    return "  nics: " + util::join(parts, ", ") + "\n";
}

}  // namespace

std::string placement_to_text(const policy::placement::PlacementResult& result,
                              const model::Topology& topology,
                              const std::string& profile,
                              const std::optional<policy::placement::NicAffinity>& nics) {
    std::string out = headline(result);
    for (std::size_t i = 0; i < result.groups.size(); ++i) {
        out += group_text(result, topology, result.groups[i], i + 1, profile);
        out += nics ? group_nics_text(*nics, topology, result.groups[i]) : "";
    }
    const auto& o = result.objective;
    out += fmt::format("leftover: {}\n", ints(result.leftover));
    out += fmt::format(
        "objective: min bottleneck {}, sum of bottlenecks {}, sum of pair weights {}, NUMA spans "
        "{}\n",
        weight(result, o.min_bottleneck),
        weight(result, o.sum_bottleneck),
        weight(result, o.sum_pair_weight),
        o.numa_spans);
    return out;
}

}  // namespace peergate::report::placement
