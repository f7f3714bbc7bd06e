// SPDX-License-Identifier: Apache-2.0
#include "sources/host/host_facts_reader.hpp"

#include "sources/host/nvidia_version.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::sources::host {

namespace {

constexpr const char* kGroups = "/sys/kernel/iommu_groups";

}  // namespace

model::IommuMode read_iommu_mode(const HostRoot& root, std::string* detail) {
    auto groups = root.list(kGroups);
    if (!groups || groups->empty()) {
        if (detail != nullptr) {
            *detail = groups ? "no IOMMU groups" : "no " + std::string(kGroups);
        }
        return model::IommuMode::off;
    }
    std::size_t readable = 0;
    for (const auto& group : *groups) {
        auto type = root.read_text(std::string(kGroups) + "/" + group + "/type");
        if (!type) {
            continue;
        }
        ++readable;
        const std::string_view value = util::trim(*type);
        if (!value.starts_with("identity")) {
            if (detail != nullptr) {
                *detail = fmt::format("{} groups; group {} is {}", groups->size(), group, value);
            }
            return model::IommuMode::translating;
        }
    }
    if (detail != nullptr) {
        *detail = readable == 0 ? fmt::format("{} groups, no readable type", groups->size())
                                : fmt::format("{} groups, all identity", groups->size());
    }
    return readable == 0 ? model::IommuMode::unknown : model::IommuMode::identity;
}

std::optional<bool> read_hypervisor_flag(const HostRoot& root) {
    auto cpuinfo = root.read_text("/proc/cpuinfo");
    if (!cpuinfo) {
        return std::nullopt;
    }
    for (std::string_view line : util::split_lines(*cpuinfo)) {
        if (!line.starts_with("flags")) {
            continue;
        }
        for (std::string_view flag : util::split_whitespace(line)) {
            if (flag == "hypervisor") {
                return true;
            }
        }
        return false;
    }
    return std::nullopt;
}

std::optional<std::string> read_peer_memory_module(const HostRoot& root) {
    if (root.exists("/sys/module/nvidia_peermem")) {
        return "nvidia_peermem";
    }
    if (root.exists("/sys/kernel/mm/memory_peers/nv_mem/version")) {
        return "nv_peer_mem";
    }
    return root.exists("/sys/module") ? std::optional<std::string>("") : std::nullopt;
}

model::HostFacts read_host_facts(const HostRoot& root) {
    model::HostFacts facts;
    facts.iommu = read_iommu_mode(root, &facts.iommu_detail);
    facts.hypervisor = read_hypervisor_flag(root);
    if (auto cmdline = root.read_text("/proc/cmdline")) {
        facts.kernel_cmdline = std::string(util::trim(*cmdline));
    }
    if (auto boot_id = root.read_text("/proc/sys/kernel/random/boot_id")) {
        facts.boot_id = std::string(util::trim(*boot_id));
    }
    facts.peer_memory_module = read_peer_memory_module(root);
    facts.nvidia_module = read_nvidia_module(root);
    facts.kernel_release = read_kernel_release(root);
    return facts;
}

}  // namespace peergate::sources::host
