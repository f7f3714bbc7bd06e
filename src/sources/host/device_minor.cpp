// SPDX-License-Identifier: Apache-2.0
#include "sources/host/device_minor.hpp"

#include "util/strings.hpp"

namespace peergate::sources::host {

std::optional<int> parse_device_minor(std::string_view information) {
    constexpr std::string_view kKey = "Device Minor:";
    for (const auto line : util::split_lines(information)) {
        const auto trimmed = util::trim(line);
        if (trimmed.starts_with(kKey)) {
            const auto minor = util::parse_int<int>(util::trim(trimmed.substr(kKey.size())));
            return minor && *minor >= 0 ? minor : std::nullopt;
        }
    }
    return std::nullopt;
}

std::map<int, int> read_device_minors(const HostRoot& root, const std::vector<model::Gpu>& gpus) {
    std::map<int, int> minors;
    for (const auto& gpu : gpus) {
        if (!gpu.pci) {
            continue;
        }
        const auto text =
            root.read_text("/proc/driver/nvidia/gpus/" + gpu.pci->to_sysfs() + "/information");
        if (const auto minor = text ? parse_device_minor(*text) : std::nullopt) {
            minors[gpu.index] = *minor;
        }
    }
    return minors;
}

}  // namespace peergate::sources::host
