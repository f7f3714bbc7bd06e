// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/names.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <array>

namespace peergate::policy::gate {

namespace {

// SXM/NVL parts that carry NVLink (H100 PCIe cards take a bridge too).
constexpr std::array<std::string_view, 11> kNvlinkNames = {
    "a100", "a30", "h100", "h200", "h800", "gh200", "b200", "b100", "b300", "gb200", "gb300"};

// Data-center parts without an NVLink connector; they ship in 2/4/8-way PCIe boxes.
constexpr std::array<std::string_view, 5> kPcieOnlyNames = {
    "l40", "l40s", "l4", "rtx pro 6000", "rtx 6000 ada"};

template <std::size_t N>
bool matches_any(std::string_view name, const std::array<std::string_view, N>& words) {
    return std::any_of(words.begin(), words.end(), [&](std::string_view word) {
        return util::contains_word(name, word);
    });
}

}  // namespace

bool is_datacenter_name(std::string_view gpu_name) {
    return matches_any(gpu_name, kNvlinkNames) || matches_any(gpu_name, kPcieOnlyNames);
}

bool is_nvlink_capable_name(std::string_view gpu_name) {
    return matches_any(gpu_name, kNvlinkNames);
}

}  // namespace peergate::policy::gate
