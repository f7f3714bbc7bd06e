// SPDX-License-Identifier: Apache-2.0
#include "policy/launch/cpu_binding.hpp"

#include "util/cpu_list.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace peergate::policy::launch {

namespace {

using Ranges = std::vector<std::pair<int, int>>;

// The CPUs near every selected GPU as ranges, or why they cannot be known. Ranges, not a set:
// a CPU list is the driver's text, and a set would hold whatever it spans.
std::optional<Ranges> near_ranges(const std::vector<model::Gpu>& gpus,
                                  const std::vector<int>& selection,
                                  std::string& why) {
    Ranges near;
    for (int index : selection) {
        const model::Gpu* gpu = model::find_gpu(gpus, index);
        const auto ranges =
            gpu != nullptr ? util::parse_cpu_ranges(gpu->cpu_affinity) : std::nullopt;
        if (!ranges) {
            why = fmt::format("GPU {}'s CPU affinity is unknown", index);
            return std::nullopt;
        }
        near.insert(near.end(), ranges->begin(), ranges->end());
    }
    return near;
}

bool within(const Ranges& ranges, int cpu) {
    return std::any_of(ranges.begin(), ranges.end(), [&](const auto& range) {
        return cpu >= range.first && cpu <= range.second;
    });
}

}  // namespace

CpuBinding cpu_binding(const std::vector<model::Gpu>& gpus,
                       const std::vector<int>& selection,
                       const std::vector<int>& allowed) {
    if (selection.empty()) {
        return CpuBinding{.why = "no GPU selected"};
    }
    std::string why;
    const auto near = near_ranges(gpus, selection, why);
    if (!near) {
        return CpuBinding{.why = why};
    }
    CpuBinding binding;
    std::copy_if(allowed.begin(), allowed.end(), std::back_inserter(binding.cpus), [&](int cpu) {
        return within(*near, cpu);
    });
    std::sort(binding.cpus.begin(), binding.cpus.end());
    const std::string near_text = util::format_cpu_ranges(*near);
    if (binding.cpus.empty()) {
        binding.why = fmt::format(
            "none of the CPUs near GPU{} {} ({}) is allowed to this process (allowed: {})",
            selection.size() == 1 ? "" : "s",
            fmt::join(selection, ","),
            near_text,
            util::format_cpu_list(allowed));
        return binding;
    }
    const std::string bound_text = util::format_cpu_list(binding.cpus);
    binding.why = fmt::format("CPUs {}, near GPU{} {}{}",
                              bound_text,
                              selection.size() == 1 ? "" : "s",
                              fmt::join(selection, ","),
                              bound_text != near_text
                                  ? fmt::format(" (of {}; the others are not allowed to this "
                                                "process)",
                                                near_text)
                                  : "");
    return binding;
}

}  // namespace peergate::policy::launch
