// SPDX-License-Identifier: Apache-2.0
#include "model/link_label.hpp"

#include "util/strings.hpp"

#include <array>
#include <utility>

namespace peergate::model {

namespace {

// One table maps the fixed-name classes to and from their tokens.
constexpr std::array<std::pair<std::string_view, LinkKind>, 6> kTokens{{
    {"X", LinkKind::self},
    {"PIX", LinkKind::pix},
    {"PXB", LinkKind::pxb},
    {"PHB", LinkKind::phb},
    {"NODE", LinkKind::node},
    {"SYS", LinkKind::sys},
}};

}  // namespace

std::optional<LinkLabel> LinkLabel::parse(std::string_view token) {
    for (const auto& [text, kind] : kTokens) {
        if (token == text) {
            return LinkLabel::of(kind);
        }
    }
    if (token == "SOC") {  // drivers before ~384 named the cross-socket path SOC
        return LinkLabel::of(LinkKind::sys);
    }
    if (token.size() > 2 && token.substr(0, 2) == "NV") {
        const auto count = util::parse_int<int>(token.substr(2));
        if (count && *count >= 1 && *count <= 1024) {
            return LinkLabel::nvlink(*count);
        }
    }
    return std::nullopt;
}

std::string LinkLabel::to_token() const {
    if (kind == LinkKind::nvlink) {
        return "NV" + std::to_string(nvlinks);
    }
    for (const auto& [text, k] : kTokens) {
        if (k == kind) {
            return std::string(text);
        }
    }
    return "unknown";
}

std::strong_ordering operator<=>(const LinkLabel& a, const LinkLabel& b) {
    if (a.kind != b.kind) {
        return a.kind <=> b.kind;
    }
    // More links is a better (smaller) NV# label.
    return b.nvlinks <=> a.nvlinks;
}

}  // namespace peergate::model
