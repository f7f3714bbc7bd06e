// SPDX-License-Identifier: Apache-2.0
#include "sources/host/numa_cpumap.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::sources::host {

std::optional<std::string> read_numa_cpumap(const HostRoot& root, int node) {
    if (node < 0) {
        return std::nullopt;
    }
    const auto text = root.read_text(fmt::format("/sys/devices/system/node/node{}/cpumap", node));
    if (!text) {
        return std::nullopt;
    }
    const std::string mask(util::trim(*text));
    // Lower-case hex and commas only: older NCCL releases read no other character.
    const bool well_formed = !mask.empty() && std::all_of(mask.begin(), mask.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ',';
    });
    return well_formed ? std::optional<std::string>(mask) : std::nullopt;
}

}  // namespace peergate::sources::host
