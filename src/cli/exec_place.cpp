// SPDX-License-Identifier: Apache-2.0
#include "cli/exec_place.hpp"

#include "cli/topology_input.hpp"
#include "policy/gate_types.hpp"
#include "policy/placement.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace peergate::cli {

namespace {

std::string describe(const policy::PlacedGroup& group, bool exact) {
    std::string why = "one GPU";
    if (group.bottleneck_label && group.bottleneck_pair) {
        why = fmt::format("weakest link {} (GPU {} - GPU {})",
                          group.bottleneck_label->to_token(),
                          group.bottleneck_pair->first,
                          group.bottleneck_pair->second);
    }
    const std::string numa = group.numa_unknown ? "NUMA unknown"
                             : group.numa_nodes.empty()
                                 ? "no NUMA node"
                                 : fmt::format("NUMA {}", fmt::join(group.numa_nodes, ","));
    return fmt::format("placed on GPUs {}: {}, {}{}",
                       fmt::join(group.gpus, ","),
                       why,
                       numa,
                       exact ? "" : " (the best found, not proven best)");
}

}  // namespace

util::Expected<PlacedSelection> place_for_exec(const Invocation& inv,
                                               int size,
                                               const std::string& candidates) {
    policy::PlacementRequest request{.size = size, .count = 1};
    if (!candidates.empty() && candidates != "all") {
        auto selection = policy::Selection::parse(candidates);
        if (!selection) {
            return util::unexpected(selection.error());
        }
        request.candidates = selection->ids;
    }
    const auto discovery = discover(inv, "auto", false);
    const model::Topology* topology = discovery.described();
    if (topology == nullptr) {
        return util::unexpected(util::ErrorCode::unavailable,
                                "--place: the topology is unreadable: " + discovery.reason);
    }
    auto placed = policy::place(*topology, request);
    if (!placed) {
        return util::unexpected(placed.error().code, "--place: " + placed.error().message);
    }
    const auto& group = placed->groups.front();
    return PlacedSelection{.gpus = fmt::format("{}", fmt::join(group.gpus, ",")),
                           .log = describe(group, placed->exact)};
}

}  // namespace peergate::cli
