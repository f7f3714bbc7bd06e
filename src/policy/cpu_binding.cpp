// SPDX-License-Identifier: Apache-2.0
#include "policy/cpu_binding.hpp"

#include "util/cpu_list.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>

namespace peergate::policy {

namespace {

const model::Gpu* gpu_of(const std::vector<model::Gpu>& gpus, int index) {
    const auto it = std::find_if(
        gpus.begin(), gpus.end(), [&](const model::Gpu& gpu) { return gpu.index == index; });
    return it == gpus.end() ? nullptr : &*it;
}

// The CPUs near every selected GPU, or why they cannot be known.
std::optional<std::set<int>> near_cpus(const std::vector<model::Gpu>& gpus,
                                       const std::vector<int>& selection,
                                       std::string& why) {
    std::set<int> near;
    for (int index : selection) {
        const model::Gpu* gpu = gpu_of(gpus, index);
        const auto ranges =
            gpu != nullptr ? util::parse_cpu_ranges(gpu->cpu_affinity) : std::nullopt;
        if (!ranges) {
            why = fmt::format("GPU {}'s CPU affinity is unknown", index);
            return std::nullopt;
        }
        for (const auto& [lo, hi] : *ranges) {
            for (int cpu = lo; cpu <= hi; ++cpu) {
                near.insert(cpu);
            }
        }
    }
    return near;
}

}  // namespace

CpuBinding cpu_binding(const std::vector<model::Gpu>& gpus,
                       const std::vector<int>& selection,
                       const std::vector<int>& allowed) {
    if (selection.empty()) {
        return CpuBinding{.why = "no GPU selected"};
    }
    std::string why;
    const auto near = near_cpus(gpus, selection, why);
    if (!near) {
        return CpuBinding{.why = why};
    }
    CpuBinding binding;
    std::copy_if(allowed.begin(), allowed.end(), std::back_inserter(binding.cpus), [&](int cpu) {
        return near->count(cpu) > 0;
    });
    std::sort(binding.cpus.begin(), binding.cpus.end());
    const std::string near_text = util::format_cpu_list({near->begin(), near->end()});
    if (binding.cpus.empty()) {
        binding.why = fmt::format(
            "none of the CPUs near GPUs {} ({}) is allowed to this process (allowed: {})",
            fmt::join(selection, ","),
            near_text,
            util::format_cpu_list(allowed));
        return binding;
    }
    binding.why = fmt::format("CPUs {}, near GPUs {}{}",
                              util::format_cpu_list(binding.cpus),
                              fmt::join(selection, ","),
                              binding.cpus.size() < near->size()
                                  ? fmt::format(" (of {}; the others are not allowed to this "
                                                "process)",
                                                near_text)
                                  : "");
    return binding;
}

}  // namespace peergate::policy
