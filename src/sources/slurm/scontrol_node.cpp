// SPDX-License-Identifier: Apache-2.0
#include "sources/slurm/scontrol_node.hpp"

#include "util/strings.hpp"

namespace peergate::sources::slurm {

namespace {

// The value of the first `key=` token on any line (up to the next space).
std::optional<std::string> token_value(std::string_view text, std::string_view key) {
    for (const auto line : util::split_lines(text)) {
        for (const auto token : util::split_whitespace(line)) {
            if (token.starts_with(key)) {
                return std::string(token.substr(key.size()));
            }
        }
    }
    return std::nullopt;
}

// Reason= takes the rest of its line: the reason may hold spaces.
std::string reason_of(std::string_view text) {
    constexpr std::string_view kKey = "Reason=";
    for (const auto line : util::split_lines(text)) {
        const auto trimmed = util::trim(line);
        if (trimmed.starts_with(kKey)) {
            const auto reason = trimmed.substr(kKey.size());
            return reason == "(null)" ? std::string() : std::string(reason);
        }
    }
    return "";
}

}  // namespace

bool NodeState::draining() const {
    for (const auto flag : util::split(state, '+')) {
        if (flag.starts_with("DRAIN")) {
            return true;
        }
    }
    return false;
}

std::optional<NodeState> parse_scontrol_node(std::string_view text) {
    auto name = token_value(text, "NodeName=");
    if (!name) {
        return std::nullopt;
    }
    return NodeState{.name = std::move(*name),
                     .state = token_value(text, "State=").value_or(""),
                     .reason = reason_of(text)};
}

}  // namespace peergate::sources::slurm
