// SPDX-License-Identifier: Apache-2.0
#include "model/gpu_list.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::model {

util::Expected<std::optional<std::vector<int>>> parse_gpu_list(std::string_view text,
                                                               std::string_view option) {
    const std::string_view trimmed = util::trim(text);
    if (trimmed == "all") {
        return std::optional<std::vector<int>>();
    }
    if (trimmed.empty()) {
        return util::unexpected(
            util::ErrorCode::invalid_input,
            fmt::format("{} is empty: give nvidia-smi indices such as 0,1,3 or 'all'", option));
    }
    std::vector<int> ids;
    for (std::string_view field : util::split(trimmed, ',')) {
        const std::string_view id_text = util::trim(field);
        const auto id = util::parse_int<int>(id_text);
        if (!id || *id < 0 || *id > kMaxGpuIndex) {
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format("{} '{}': '{}' is not a GPU index (expected nvidia-smi indices "
                            "such as 0,1,3, or 'all')",
                            option,
                            text,
                            id_text));
        }
        if (std::find(ids.begin(), ids.end(), *id) != ids.end()) {
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format("{} '{}': GPU {} is listed twice", option, text, *id));
        }
        ids.push_back(*id);
    }
    return std::optional<std::vector<int>>(std::move(ids));
}

util::Expected<std::vector<int>> parse_gpu_indices(std::string_view text, std::string_view option) {
    auto ids = parse_gpu_list(text, option);
    if (!ids) {
        return util::unexpected(ids.error());
    }
    return ids->value_or(std::vector<int>{});
}

}  // namespace peergate::model
