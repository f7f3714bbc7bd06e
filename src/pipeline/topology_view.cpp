// SPDX-License-Identifier: Apache-2.0
#include "pipeline/topology_view.hpp"

#include "pipeline/discover.hpp"
#include "pipeline/nic_affinity.hpp"

namespace peergate::pipeline {

TopologyView view_topology(const Context& ctx,
                           const std::string& source,
                           bool crosscheck,
                           const std::string& from) {
    TopologyView view{
        .discovery = from.empty() ? discover(ctx, source, crosscheck) : read_topology_file(from),
        .nics = std::nullopt};
    const model::Topology* described = view.discovery.described();
    if (from.empty() && described != nullptr) {
        view.nics = read_nic_affinity(ctx, *described);
    }
    return view;
}

}  // namespace peergate::pipeline
