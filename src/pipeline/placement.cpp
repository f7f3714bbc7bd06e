// SPDX-License-Identifier: Apache-2.0
#include "pipeline/placement.hpp"

#include "model/gpu_list.hpp"
#include "pipeline/bandwidth_input.hpp"
#include "pipeline/topology_view.hpp"

namespace peergate::pipeline {

namespace {

// --require: the same grammar, but 'all' names no particular GPUs; not given: none.
util::Expected<std::vector<int>> parse_required(const std::optional<std::string>& text) {
    if (!text) {
        return std::vector<int>{};
    }
    auto ids = model::parse_gpu_list(*text, "--require");
    if (!ids) {
        return util::unexpected(ids.error());
    }
    if (!*ids) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "--require 'all': name the GPUs that must share the first "
                                "group, such as 0,1");
    }
    return std::move(**ids);
}

util::Expected<policy::placement::PlacementRequest> build_request(const PlacementQuery& query,
                                                                  const model::Topology& topology) {
    policy::placement::PlacementRequest request{.size = query.size, .count = query.count};
    auto candidates = model::parse_gpu_indices(query.gpus);
    auto required = parse_required(query.require);
    if (!candidates || !required) {
        return util::unexpected(candidates ? required.error() : candidates.error());
    }
    request.candidates = std::move(*candidates);
    request.required = std::move(*required);
    if (!query.bandwidth.empty()) {
        auto file = read_bandwidth_file(query.bandwidth, &topology);
        if (!file) {
            return util::unexpected(file.error());
        }
        request.bandwidth = std::move(file->samples);
    }
    return request;
}

}  // namespace

util::Expected<Placement> place_groups(const Context& ctx, const PlacementQuery& query) {
    auto view = view_topology(ctx, query.source, false, query.from);
    const model::Topology* topology = view.discovery.described();
    if (topology == nullptr) {
        return util::unexpected(util::ErrorCode::unavailable,
                                "topology unreadable: " + view.discovery.reason);
    }
    auto request = build_request(query, *topology);
    if (!request) {
        return util::unexpected(request.error());
    }
    auto result = policy::placement::place(*topology, *request);
    if (!result) {
        return util::unexpected(result.error());
    }
    return Placement{
        .topology = *topology, .result = std::move(*result), .nics = std::move(view.nics)};
}

}  // namespace peergate::pipeline
