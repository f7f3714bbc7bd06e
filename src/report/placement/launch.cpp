// SPDX-License-Identifier: Apache-2.0
#include "report/placement/launch.hpp"

#include "util/cpu_list.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::report::placement {

std::optional<std::string> merge_cpu_lists(const std::vector<std::string>& lists) {
    std::vector<std::pair<int, int>> ranges;
    for (const auto& list : lists) {
        const auto parsed = util::parse_cpu_ranges(list);
        if (!parsed) {
            return std::nullopt;
        }
        ranges.insert(ranges.end(), parsed->begin(), parsed->end());
    }
    return util::format_cpu_ranges(std::move(ranges));
}

GroupLaunch launch_for(const model::Topology& topology,
                       const policy::placement::PlacedGroup& group,
                       const std::string& profile) {
    GroupLaunch launch;
    const std::string list = util::join_ints(group.gpus, ",");
    launch.env = "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=" + list;
    std::vector<std::string> affinities;
    for (int id : group.gpus) {
        const auto position = topology.position_of(id);
        affinities.push_back(position ? topology.gpus[*position].cpu_affinity : std::string());
    }
    launch.cpu_affinity = merge_cpu_lists(affinities).value_or("");
    // exec binds the CPUs and memory itself where the GPUs' affinity and NUMA nodes are
    // known, as the numactl line would.
    const bool nodes_known = !group.numa_nodes.empty() && !group.numa_unknown;
    launch.exec = fmt::format("peergate exec --gpus {} --for {}{}{} -- ...",
                              list,
                              profile,
                              launch.cpu_affinity.empty() ? "" : " --bind-cpus",
                              nodes_known ? " --bind-memory" : "");
    if (group.numa_nodes.size() == 1 && !group.numa_unknown) {
        launch.cpu =
            fmt::format("numactl --cpunodebind={0} --membind={0}", group.numa_nodes.front());
    } else if (!launch.cpu_affinity.empty()) {
        launch.cpu = "taskset -c " + launch.cpu_affinity;
    }
    return launch;
}

}  // namespace peergate::report::placement
