// SPDX-License-Identifier: Apache-2.0
// How to launch on a placed group: the environment, the CPU binding and the `peergate exec`
// line that `place` prints in both its text and its JSON.
#pragma once

#include "model/topology.hpp"
#include "policy/placement/placement.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::report::placement {

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

}  // namespace peergate::report::placement
