// SPDX-License-Identifier: Apache-2.0
// `peergate place` output: the groups, each group's bottleneck link and NUMA nodes, and
// how to launch on it (peergate.placement/v1 for --json).
#pragma once

#include "model/topology.hpp"
#include "policy/placement/nic_affinity.hpp"
#include "policy/placement/placement.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace peergate::report {

// The launch lines for one group.
struct GroupLaunch {
    std::string env;  // CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1
    std::string cpu;  // numactl ... (one NUMA node) or taskset -c ...; empty when unknown
    std::string
        exec;  // peergate exec --gpus 0,1 --for PROFILE [--bind-cpus] [--bind-memory] -- ...
    std::string cpu_affinity;  // union of the members' CPU lists; empty when one is unknown
};

GroupLaunch launch_for(const model::Topology& topology,
                       const policy::placement::PlacedGroup& group,
                       const std::string& profile);

// Merges CPU lists such as "0-19,40-59" and "20-39" into one canonical list ("0-59");
// nullopt when a list is empty or malformed.
std::optional<std::string> merge_cpu_lists(const std::vector<std::string>& lists);

// `nics`: each NIC's class of path to each GPU of `topology` (nullopt where sysfs was not
// read, a saved file): the JSON gains topology/v1's "nics" and "nearest_nics", and each group
// its members' nearest NICs; the text a "nics:" line per group.
nlohmann::ordered_json placement_to_json(
    const policy::placement::PlacementResult& result,
    const model::Topology& topology,
    const std::string& profile,
    const std::optional<policy::placement::NicAffinity>& nics = std::nullopt);

std::string placement_to_text(
    const policy::placement::PlacementResult& result,
    const model::Topology& topology,
    const std::string& profile,
    const std::optional<policy::placement::NicAffinity>& nics = std::nullopt);

}  // namespace peergate::report
