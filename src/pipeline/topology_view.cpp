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
    if (described == nullptr) {
        return view;
    }
    if (from.empty()) {
        view.nics = read_nic_affinity(ctx, *described);
    }
    // What nvidia-smi printed stands where sysfs shows no NIC (a saved file, a container
    // without /sys): its NIC rows are the same classes, read by the driver.
    if ((!view.nics || view.nics->nics.empty()) && !described->nics.empty()) {
        view.nics = policy::placement::nic_affinity_from_text(*described);
    }
    return view;
}

}  // namespace peergate::pipeline
