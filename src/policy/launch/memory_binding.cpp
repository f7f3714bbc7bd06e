// SPDX-License-Identifier: Apache-2.0
#include "policy/launch/memory_binding.hpp"

#include "model/gpu.hpp"
#include "util/cpu_list.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

namespace peergate::policy::launch {

namespace {

// The selected GPUs' NUMA nodes, ascending and distinct, or why they cannot be known.
std::optional<std::vector<int>> gpu_nodes(const std::vector<model::Gpu>& gpus,
                                          const std::vector<int>& selection,
                                          std::string& why) {
    std::vector<int> nodes;
    for (int index : selection) {
        const model::Gpu* gpu = model::find_gpu(gpus, index);
        if (gpu == nullptr || !gpu->numa_node || *gpu->numa_node < 0) {
            why = fmt::format("GPU {}'s NUMA node is unknown", index);
            return std::nullopt;
        }
        nodes.push_back(*gpu->numa_node);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
}

std::string node_words(const std::vector<int>& nodes) {
    return fmt::format("NUMA node{} {}", nodes.size() == 1 ? "" : "s", fmt::join(nodes, ","));
}

}  // namespace

MemoryBinding memory_binding(const std::vector<model::Gpu>& gpus,
                             const std::vector<int>& selection,
                             const std::vector<int>& allowed) {
    if (selection.empty()) {
        return MemoryBinding{.why = "no GPU selected"};
    }
    std::string why;
    const auto near = gpu_nodes(gpus, selection, why);
    if (!near) {
        return MemoryBinding{.why = why};
    }
    MemoryBinding binding;
    std::copy_if(near->begin(), near->end(), std::back_inserter(binding.nodes), [&](int node) {
        return std::find(allowed.begin(), allowed.end(), node) != allowed.end();
    });
    if (binding.nodes.empty()) {
        binding.why = fmt::format("{} of {} {} not allowed to this process (allowed: {})",
                                  node_words(*near),
                                  model::gpu_words(selection),
                                  near->size() == 1 ? "is" : "are",
                                  util::format_cpu_list(allowed));
        return binding;
    }
    binding.why = fmt::format("{}, near {}{}",
                              node_words(binding.nodes),
                              model::gpu_words(selection),
                              binding.nodes != *near
                                  ? fmt::format(" (of {}; the others are not allowed to this "
                                                "process)",
                                                fmt::join(*near, ","))
                                  : "");
    return binding;
}

}  // namespace peergate::policy::launch
