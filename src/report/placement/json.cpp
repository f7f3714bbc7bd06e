// SPDX-License-Identifier: Apache-2.0
#include "report/placement/json.hpp"

#include "report/placement/launch.hpp"
#include "report/topology/json.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::report::placement {

namespace {

using Json = nlohmann::ordered_json;

// A weight as people read it: the label table's integer, or GB/s when measured.
Json weight_json(const policy::placement::PlacementResult& result,
                 policy::placement::Weight weight) {
    if (weight == policy::placement::kUnlimited) {
        return nullptr;
    }
    return result.measured ? Json(static_cast<double>(weight) /
                                  static_cast<double>(policy::placement::kBandwidthScale))
                           : Json(weight);
}

// The nearest NICs of each member, as topology/v1's "nearest_nics" gives them.
Json group_nearest_nics(const policy::placement::NicAffinity& nics,
                        const model::Topology& topology,
                        const policy::placement::PlacedGroup& group) {
    Json out = Json::array();
    for (int id : group.gpus) {
        if (const auto position = topology.position_of(id)) {
            out.push_back(report::topology::nearest_nic_to_json(nics, topology, *position));
        }
    }
    return out;
}

Json group_json(const policy::placement::PlacementResult& result,
                const model::Topology& topology,
                const policy::placement::PlacedGroup& group,
                const std::string& profile) {
    const auto launch = launch_for(topology, group, profile);
    Json numa = Json::array();
    for (int node : group.numa_nodes) {
        numa.push_back(node);
    }
    if (group.numa_unknown) {
        numa.push_back(nullptr);
    }
    const auto& label = group.bottleneck_label;
    return Json{
        {"gpus", group.gpus},
        {"bottleneck", label ? Json(label->to_token()) : Json(nullptr)},
        {"bottleneck_weight",
         group.bottleneck ? weight_json(result, *group.bottleneck) : Json(nullptr)},
        {"bottleneck_pair",
         group.bottleneck_pair
             ? Json::array({group.bottleneck_pair->first, group.bottleneck_pair->second})
             : Json(nullptr)},
        {"nvlinks", label ? Json(label->nvlinks) : Json(nullptr)},
        {"numa_nodes", numa},
        {"cuda_visible_devices", util::join_ints(group.gpus, ",")},
        {"cpu_affinity", launch.cpu_affinity.empty() ? Json(nullptr) : Json(launch.cpu_affinity)},
        {"pair_weight_sum", weight_json(result, group.pair_weight_sum)},
        {"required", group.required},
        {"launch",
         Json{{"env", launch.env},
              {"cpu", launch.cpu.empty() ? Json(nullptr) : Json(launch.cpu)},
              {"exec", launch.exec}}}};
}

// What no placement can beat, term by term (PlacementResult::bound); null where nothing
// bounds a term.
Json bound_json(const policy::placement::PlacementResult& result) {
    const auto& b = result.bound;
    const auto open = policy::placement::open_term(result);
    const bool spans_bounded = !open || *open == "numa_spans" || *open == "tie_break";
    return Json{{"min_bottleneck", weight_json(result, b.min_bottleneck)},
                {"sum_bottleneck", weight_json(result, b.sum_bottleneck)},
                {"sum_pair_weight", weight_json(result, b.sum_pair_weight)},
                {"numa_spans", spans_bounded ? Json(b.numa_spans) : Json(nullptr)}};
}

Json objective_json(const policy::placement::PlacementResult& result) {
    const auto& o = result.objective;
    const auto open = policy::placement::open_term(result);
    return Json{
        {"min_bottleneck", weight_json(result, o.min_bottleneck)},
        {"sum_bottleneck", weight_json(result, o.sum_bottleneck)},
        {"sum_pair_weight", weight_json(result, o.sum_pair_weight)},
        {"numa_spans", o.numa_spans},
        {"weights", result.measured ? "bandwidth_gbps" : "link_labels"},
        {"exact", result.exact},
        {"method", std::string(to_string(result.method))},
        {"upper_bound", weight_json(result, result.upper_bound)},
        {"gap",
         result.upper_bound == policy::placement::kUnlimited ? Json(nullptr)
                                                             : weight_json(result, result.gap)},
        {"bound", bound_json(result)},
        {"open", open ? Json(std::string(*open)) : Json(nullptr)},
        {"nodes", result.nodes}};
}

}  // namespace

nlohmann::ordered_json placement_to_json(
    const policy::placement::PlacementResult& result,
    const model::Topology& topology,
    const std::string& profile,
    const std::optional<policy::placement::NicAffinity>& nics) {
    Json groups = Json::array();
    for (const auto& group : result.groups) {
        groups.push_back(group_json(result, topology, group, profile));
        groups.back()["nearest_nics"] =
            nics ? group_nearest_nics(*nics, topology, group) : Json(nullptr);
    }
    Json doc{{"schema", "peergate.placement/v1"},
             {"size", result.size},
             {"count", result.count},
             {"groups", groups},
             {"leftover", result.leftover},
             {"objective", objective_json(result)},
             {"exact", result.exact}};
    report::topology::add_nics(doc, nics, &topology);
    return doc;
}

}  // namespace peergate::report::placement
