// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_ras_lines.hpp"

#include "sources/nccl/text_cursor.hpp"

#include <string>

namespace peergate::sources::nccl {

namespace {

using model::NcclRasKind;
using model::NcclRasLine;

constexpr std::size_t kMaxCheckName = 40;  // "CUDA driver version", "NCCL environment"

NcclRasLine ras_line(NcclRasKind kind, std::string_view text) {
    return NcclRasLine{.kind = kind, .text = std::string(text)};
}

// "RAS declaring peer X as DEAD; ..." and "RAS keep-alive timeout warning (5s) on socket
// connection with X".
std::optional<NcclRasLine> parse_info(std::string_view body) {
    TextCursor cursor(body);
    if (cursor.consume("RAS declaring peer ")) {
        const std::string_view node = cursor.word();
        if (node.empty() || !cursor.consume(" as DEAD")) {
            return std::nullopt;
        }
        auto line = ras_line(NcclRasKind::dead, body);
        line.node = std::string(node);
        return line;
    }
    if (!cursor.consume("RAS keep-alive timeout warning (")) {
        return std::nullopt;
    }
    constexpr std::string_view kWith = " on socket connection with ";
    const std::size_t with = body.find(kWith);
    if (with == std::string_view::npos) {
        return std::nullopt;
    }
    auto line = ras_line(NcclRasKind::unresponsive, body);
    line.node = std::string(trim_view(body.substr(with + kWith.size())));
    return line;
}

// "Process 3487984 on node 172.16.64.213 managing GPU 5" (the GPU may be a list: then none).
std::optional<NcclRasLine> parse_process(std::string_view text, NcclRasKind kind) {
    TextCursor cursor(text);
    if (!cursor.consume("Process ")) {
        return std::nullopt;
    }
    const auto pid = cursor.integer();
    if (!pid || !cursor.consume(" on node ")) {
        return std::nullopt;
    }
    const std::string_view node = cursor.word();
    if (node.empty() || !cursor.consume(" managing GPU")) {
        return std::nullopt;
    }
    NcclRasLine line{.kind = kind, .node = std::string(node), .pid = pid};
    if (cursor.consume(" ")) {
        const auto gpu = cursor.integer();
        line.gpu = gpu && cursor.done() ? gpu : std::nullopt;
    }
    return line;
}

// "[OK]   GPU inventory: ..." / "[INFO] NCCL environment: ...": a RAS diagnostics check
// (the p2p lines are the active diagnostics, read by nccl_diag).
std::optional<NcclRasLine> parse_check(std::string_view text) {
    TextCursor cursor(text);
    const bool ok = cursor.consume("[OK]");
    if (!ok && !cursor.consume("[INFO]")) {
        return std::nullopt;
    }
    cursor.skip_spaces();
    const std::string_view words = cursor.rest();
    const std::size_t colon = words.find(": ");
    if (words.starts_with("p2p:") || colon == std::string_view::npos || colon > kMaxCheckName) {
        return std::nullopt;
    }
    return ras_line(ok ? NcclRasKind::check_ok : NcclRasKind::check_issue, words);
}

// "[2025-12-19 13:07:07] PEER_DEAD: Process ...": an `ncclras -m` event.
std::optional<NcclRasLine> parse_event(std::string_view text) {
    constexpr std::string_view kDead = "] PEER_DEAD: ";
    const std::size_t at = text.find(kDead);
    if (at == std::string_view::npos || at > kMaxCheckName) {
        return std::nullopt;
    }
    auto line = parse_process(text.substr(at + kDead.size()), NcclRasKind::dead);
    if (line) {
        line->text = std::string(text);
    }
    return line;
}

// The lines of an `ncclras` report's Errors and Warnings sections.
std::optional<NcclRasLine> parse_report(std::string_view text) {
    if (auto process = parse_process(text, NcclRasKind::missing)) {
        process->text = std::string(text);
        return process;
    }
    TextCursor cursor(text);
    if (cursor.consume("The missing rank: ")) {
        auto line = ras_line(NcclRasKind::missing, text);
        const auto rank = cursor.integer();
        line.rank = rank && cursor.done() ? rank : std::nullopt;
        return line;
    }
    if (text.starts_with("The missing ranks: ") ||
        text.starts_with("Missing communicator data from ")) {
        return ras_line(NcclRasKind::missing, text);
    }
    if (text.starts_with("Communicator ranks have different ")) {
        return ras_line(NcclRasKind::mismatch, text);
    }
    const auto count = cursor.integer();
    if (count && cursor.consume(" job process") &&
        text.find(" considered dead") != std::string_view::npos) {
        return ras_line(NcclRasKind::dead, text);
    }
    TextCursor encountered(text);
    if (encountered.consume("Encountered ") && encountered.integer() &&
        encountered.consume(" communication timeout")) {
        return ras_line(NcclRasKind::timeout, text);
    }
    return std::nullopt;
}

}  // namespace

std::optional<NcclRasLine> parse_ras_line(std::string_view body) {
    const std::string_view text = trim_view(body);
    if (text.empty()) {
        return std::nullopt;
    }
    switch (text.front()) {
        case 'R':
            return parse_info(text);
        case '[':
            if (auto check = parse_check(text)) {
                return check;
            }
            return parse_event(text);
        case 'P':
        case 'T':
        case 'M':
        case 'C':
        case 'E':
            return parse_report(text);
        default:
            return text.front() >= '0' && text.front() <= '9' ? parse_report(text) : std::nullopt;
    }
}

}  // namespace peergate::sources::nccl
