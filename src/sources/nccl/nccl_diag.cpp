// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_diag.hpp"

#include "sources/nccl/text_cursor.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <string>

namespace peergate::sources::nccl {

namespace {

constexpr std::string_view kDiagMarker = "NCCL DIAG";
constexpr std::string_view kInfoPrefix = "Diagnostics P2P ";
constexpr std::size_t kMaxFieldBytes = 32;  // "LEGACY_CUDA_IPC"; no NCCL name is longer

// The failures NCCL's report names per edge, in its words.
constexpr std::array<std::string_view, 7> kFailures = {"destination buffer unavailable",
                                                       "local CUDA setup failed",
                                                       "peer-memory import failed",
                                                       "write mismatch",
                                                       "read mismatch",
                                                       "topology check failed",
                                                       "launch/check failed"};

template <typename Number>
std::optional<Number> number_of(std::string_view text) {
    Number value{};
    const auto* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    return error == std::errc{} && stop == end ? std::optional(value) : std::nullopt;
}

// One "key=value" of an edge; false when the key is not an edge field (the fields end).
bool read_field(std::string_view key, std::string_view value, model::NcclDiagLine& line) {
    struct IntField {
        std::string_view key;
        std::optional<int> model::NcclDiagLine::*field;
    };

    static constexpr std::array<IntField, 6> kInts = {{
        {"srcRank", &model::NcclDiagLine::src_rank},
        {"srcCudaDev", &model::NcclDiagLine::src_cuda_dev},
        {"srcNvmlDev", &model::NcclDiagLine::src_nvml_dev},
        {"dstRank", &model::NcclDiagLine::dst_rank},
        {"dstCudaDev", &model::NcclDiagLine::dst_cuda_dev},
        {"dstNvmlDev", &model::NcclDiagLine::dst_nvml_dev},
    }};
    for (const auto& [name, field] : kInts) {
        if (key == name) {
            line.*field = number_of<int>(value);
            return true;
        }
    }
    if (value.size() > kMaxFieldBytes) {
        return false;
    }
    if (key == "path") {
        line.path = std::string(value);
    } else if (key == "handle") {
        line.handle = std::string(value);
    } else {
        return false;
    }
    return true;
}

// "srcRank=0 srcCudaDev=0 ... handle=DIRECT": the edge's fields, read until a word that is
// not one (NCCL's extras: topoRead=, import=, expected=, the advice). False without both
// ranks, or with a rank that is not a number.
bool read_edge(std::string_view fields, model::NcclDiagLine& line) {
    TextCursor cursor(fields);
    for (std::string_view word = cursor.word(); !word.empty(); word = cursor.word()) {
        const std::size_t equals = word.find('=');
        if (equals == std::string_view::npos ||
            !read_field(word.substr(0, equals), word.substr(equals + 1), line)) {
            break;
        }
    }
    return line.src_rank && line.dst_rank && *line.src_rank >= 0 && *line.dst_rank >= 0;
}

// "Diagnostics P2P <phase> srcRank=...": tested for an import, write or read that ran, a
// failure for a failed import or topology check, skipped for a pair NCCL routes elsewhere.
std::optional<model::NcclDiagLine> parse_info(std::string_view body) {
    const std::string_view rest = body.substr(kInfoPrefix.size());
    const std::size_t fields = rest.find(" srcRank=");
    if (fields == std::string_view::npos || fields > kMaxFieldBytes) {
        return std::nullopt;
    }
    model::NcclDiagLine line;
    line.check = std::string(rest.substr(0, fields));
    if (!read_edge(rest.substr(fields + 1), line)) {
        return std::nullopt;
    }
    const bool import_failed =
        line.check == "import" && rest.find(" import=0") != std::string_view::npos;
    if (line.check == "skip") {
        line.kind = model::NcclDiagKind::skipped;
    } else if (line.check == "topo check failed" || import_failed) {
        line.kind = model::NcclDiagKind::failed;
        line.problem = true;
    } else if (line.check != "import" && line.check != "write" && line.check != "read") {
        return std::nullopt;
    }
    line.text = std::string(body);
    return line;
}

// "verified P2P access ... (56 peer accesses)" or "only 52/56 GPU-to-GPU ...": the counts.
void read_summary(std::string_view words, model::NcclDiagLine& line) {
    TextCursor cursor(words);
    if (cursor.consume("only ")) {
        const auto passed = number_of<std::uint64_t>(cursor.until('/'));
        cursor.consume("/");
        const auto tested = number_of<std::uint64_t>(cursor.word());
        if (passed && tested && cursor.consume(" GPU-to-GPU peer accesses")) {
            line.passed = passed;
            line.tested = tested;
        }
        return;
    }
    const std::size_t open = words.rfind('(');
    if (words.starts_with("verified P2P access") && open != std::string_view::npos &&
        words.ends_with(" peer accesses)")) {
        const std::string_view count = words.substr(open + 1, words.size() - open - 16);
        line.passed = number_of<std::uint64_t>(count);
        line.tested = line.passed;
    }
}

}  // namespace

std::optional<DiagMarker> split_diag_marker(std::string_view line) {
    std::size_t at = line.find(kDiagMarker);
    while (at != std::string_view::npos) {
        const std::size_t end = at + kDiagMarker.size();
        if (end == line.size() || line[end] == ' ') {
            break;
        }
        at = line.find(kDiagMarker, end);
    }
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    DiagMarker marker{{}, trim_view(line.substr(at + kDiagMarker.size()))};
    // The token before the marker: "host:pid" (DIAG_PRINT's own prefix).
    const std::string_view before = trim_view(line.substr(0, at));
    const std::string_view token = before.substr(before.rfind(' ') + 1);
    const std::size_t colon = token.rfind(':');
    if (colon != std::string_view::npos && colon > 0 &&
        number_of<long long>(token.substr(colon + 1))) {
        const std::string_view host = token.substr(0, colon);
        marker.host = host.substr(host.rfind(':') + 1);
    }
    return marker;
}

std::optional<model::NcclDiagLine> parse_p2p_diagnostics(std::string_view body) {
    body = trim_view(body);
    if (body.starts_with(kInfoPrefix)) {
        return parse_info(body);
    }
    TextCursor cursor(body);
    const bool ok = cursor.consume("[OK]");
    if (!ok && !cursor.consume("[INFO]")) {
        return std::nullopt;
    }
    cursor.skip_spaces();
    model::NcclDiagLine line{.kind = model::NcclDiagKind::report, .problem = !ok};
    line.text = std::string(cursor.rest());
    if (!cursor.consume("p2p: ")) {
        return std::nullopt;
    }
    const std::string_view words = cursor.rest();
    for (const std::string_view failure : kFailures) {
        model::NcclDiagLine edge = line;  // a line whose fields do not read stays a report
        if (words.starts_with(failure) && words.substr(failure.size()).starts_with(" srcRank=") &&
            read_edge(words.substr(failure.size() + 1), edge)) {
            edge.kind = model::NcclDiagKind::failed;
            edge.check = std::string(failure);
            return edge;
        }
    }
    read_summary(words, line);
    return line;
}

}  // namespace peergate::sources::nccl
