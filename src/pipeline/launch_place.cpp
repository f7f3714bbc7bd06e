// SPDX-License-Identifier: Apache-2.0
#include "pipeline/launch_place.hpp"

#include "pipeline/discover.hpp"
#include "pipeline/gate.hpp"
#include "pipeline/identity_join.hpp"
#include "policy/gate/types.hpp"
#include "policy/placement/placement.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace peergate::pipeline {

namespace {

std::string describe(const policy::placement::PlacedGroup& group, bool exact) {
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

// Where --place chooses from without --gpus: the GPUs an inherited CUDA_VISIBLE_DEVICES
// exposes (a Slurm or Kubernetes allocation, matched to nvidia-smi indices as the gate
// matches them), else every GPU. A place outside the allocation would not be the job's.
util::Expected<std::string> place_candidates(const Context& ctx,
                                             const std::string& profile,
                                             const std::string& identity_helper) {
    if (!ctx.env.get("CUDA_VISIBLE_DEVICES")) {
        return std::string("all");
    }
    auto request = parse_gate_request(std::nullopt, profile);
    if (!request) {
        return util::unexpected(request.error());
    }
    request->identity_helper = identity_helper;
    const auto inherited = decide_for_host(ctx.seams, ctx.env, *request);
    if (inherited.selection.empty()) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "--place: the inherited CUDA_VISIBLE_DEVICES names no GPU of "
                                "this host; give the candidates with --gpus");
    }
    return fmt::format("{}", fmt::join(inherited.selection, ","));
}

// The best group of `size` GPUs among `candidates` (a --gpus text; "all": every GPU).
util::Expected<PlacedLaunch> place_among(const Context& ctx,
                                         int size,
                                         const std::string& candidates) {
    policy::placement::PlacementRequest request{.size = size, .count = 1};
    if (!candidates.empty() && candidates != "all") {
        auto selection = policy::gate::Selection::parse(candidates);
        if (!selection) {
            return util::unexpected(selection.error());
        }
        request.candidates = selection->ids;
    }
    const auto discovery = discover(ctx, "auto", false);
    const model::Topology* topology = discovery.described();
    if (topology == nullptr) {
        return util::unexpected(util::ErrorCode::unavailable,
                                "--place: the topology is unreadable: " + discovery.reason);
    }
    auto placed = policy::placement::place(*topology, request);
    if (!placed) {
        return util::unexpected(placed.error().code, "--place: " + placed.error().message);
    }
    const auto& group = placed->groups.front();
    return PlacedLaunch{.gpus = fmt::format("{}", fmt::join(group.gpus, ",")),
                        .why = describe(group, placed->exact)};
}

}  // namespace

util::Expected<PlacedLaunch> place_launch(const Context& ctx,
                                          const std::optional<std::string>& given,
                                          int place,
                                          const std::string& profile,
                                          const std::string& identity_helper) {
    if (place < 1) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "--place: a group of GPUs has at least one member");
    }
    auto candidates = given ? util::Expected<std::string>(*given)
                            : place_candidates(ctx, profile, identity_helper);
    if (!candidates) {
        return util::unexpected(candidates.error());
    }
    return place_among(ctx, place, *candidates);
}

util::Expected<std::optional<std::string>> launch_gpus(const Context& ctx,
                                                       const std::optional<std::string>& given,
                                                       int place,
                                                       const std::string& profile) {
    if (place == 0) {
        return given;
    }
    // This binary is the identity join's helper (runs `cuda-visible`).
    auto placed = place_launch(ctx, given, place, profile, self_executable());
    if (!placed) {
        return util::unexpected(placed.error());
    }
    if (!ctx.output.quiet) {
        fmt::print(ctx.output.err, "peergate: {}\n", placed->why);
    }
    return std::optional<std::string>(placed->gpus);
}

}  // namespace peergate::pipeline
