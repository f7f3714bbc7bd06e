// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/nccl_topo.hpp"

#include <fmt/format.h>

namespace peergate::policy::gate {

std::optional<std::string> stale_nvlink_claim(const GateFacts& facts) {
    const auto& file = facts.input.nccl_topo_file;
    if (!file || !facts.input.topology) {
        return std::nullopt;
    }
    const auto claims = file->false_nvlink_claims(*facts.input.topology, facts.selection.ids);
    if (claims.empty()) {
        return std::nullopt;
    }
    const auto [a, b] = claims.front();
    return fmt::format(
        "GPU {} to GPU {} is {}", a, b, facts.input.topology->label(a, b)->to_token());
}

std::string nccl_topo_file_name(const model::NcclTopoFile& file) {
    return fmt::format("{} ({})", file.path, file.named_by);
}

}  // namespace peergate::policy::gate
