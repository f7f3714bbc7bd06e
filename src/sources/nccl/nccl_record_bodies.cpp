// SPDX-License-Identifier: Apache-2.0
// The record readers other than connections: ranks, the version, settings, graphs, ring
// orders and trees.
#include "sources/nccl/nccl_record_bodies.hpp"

#include "sources/nccl/text_cursor.hpp"

namespace peergate::sources::nccl {

namespace {

std::optional<int> word_int(std::string_view word) {
    TextCursor cursor(word);
    auto value = cursor.integer();
    return value && cursor.done() ? value : std::nullopt;
}

bool is_setting_name(std::string_view name) {
    if (name.size() <= 5 || !starts_with_text(name, "NCCL_")) {
        return false;
    }
    for (char c : name) {
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
            return false;
        }
    }
    return true;
}

// Applies one "key value" pair of a rank line.
void apply_rank_field(std::string_view key,
                      std::string_view value,
                      RankLine& line,
                      bool& has_rank) {
    if (key == "rank") {
        if (auto rank = word_int(value)) {
            line.rank = *rank;
            has_rank = true;
        }
    } else if (key == "nranks") {
        line.nranks = word_int(value);
    } else if (key == "cudaDev") {
        line.cuda_dev = word_int(value);
    } else if (key == "nvmlDev") {
        line.nvml_dev = word_int(value);
    } else if (key == "busId") {
        line.bus_id = value;
    } else if (key == "commId") {
        line.comm_id = value;
    }
}

}  // namespace

std::optional<RankLine> parse_rank(std::string_view body) {
    const std::size_t comm = body.find("comm 0x");
    if (comm == std::string_view::npos) {
        return std::nullopt;
    }
    RankLine line;
    if (body.find("- Init COMPLETE") != std::string_view::npos) {
        line.complete = true;
    } else if (body.find("- Init START") == std::string_view::npos) {
        return std::nullopt;
    }
    TextCursor cursor(body.substr(comm + 5));
    line.comm = cursor.word();
    bool has_rank = false;
    for (std::string_view key = cursor.word(); !key.empty() && key != "-"; key = cursor.word()) {
        apply_rank_field(key, cursor.word(), line, has_rank);
    }
    if (!has_rank || line.rank < 0) {
        return std::nullopt;
    }
    return line;
}

std::optional<std::string_view> parse_version(std::string_view text) {
    constexpr std::string_view kVersion = "NCCL version ";
    const std::size_t at = text.find(kVersion);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    TextCursor cursor(text.substr(at + kVersion.size()));
    const std::string_view version = cursor.word();
    if (version.empty() || version[0] < '0' || version[0] > '9') {
        return std::nullopt;
    }
    return version;
}

std::optional<SettingLine> parse_setting(std::string_view body) {
    TextCursor cursor(trim_view(body));
    const std::string_view name = cursor.word();
    if (!is_setting_name(name)) {
        return std::nullopt;
    }
    cursor.skip_spaces();
    if (!cursor.consume("set by environment to") && !cursor.consume("set to")) {
        return std::nullopt;
    }
    std::string_view value = trim_view(cursor.rest());
    // NCCL ends some of these messages with a full stop ("... to 1.").
    if (!value.empty() && value.back() == '.') {
        value.remove_suffix(1);
    }
    return SettingLine{name, value};
}

std::optional<GraphLine> parse_graph(std::string_view body) {
    TextCursor cursor(trim_view(body));
    if (!cursor.consume("Pattern ")) {
        return std::nullopt;
    }
    GraphLine line;
    auto pattern = cursor.integer();
    const std::string_view rest = cursor.rest();
    const std::size_t channels = rest.find("nChannels ");
    const std::size_t type = rest.find("type ");
    if (!pattern || channels == std::string_view::npos || type == std::string_view::npos) {
        return std::nullopt;
    }
    line.pattern = *pattern;
    TextCursor channel_cursor(rest.substr(channels + 10));
    auto n_channels = channel_cursor.integer();
    TextCursor type_cursor(rest.substr(type + 5));
    std::string_view types = type_cursor.until(',');
    const std::size_t slash = types.find('/');
    if (!n_channels || slash == std::string_view::npos || slash == 0) {
        return std::nullopt;
    }
    line.n_channels = *n_channels;
    line.intra_type = types.substr(0, slash);
    line.inter_type = trim_view(types.substr(slash + 1));
    return line;
}

bool parse_ring_into(std::string_view body, RingLine& out) {
    TextCursor cursor(trim_view(body));
    if (!cursor.consume("Channel ")) {
        return false;
    }
    auto channel = cursor.integer();
    if (!channel || !cursor.consume("/") || !cursor.integer()) {
        return false;
    }
    out.channel = *channel;
    out.order.clear();
    cursor.skip_spaces();
    if (!cursor.consume(":")) {
        return false;
    }
    for (std::string_view word = cursor.word(); !word.empty(); word = cursor.word()) {
        auto rank = word_int(word);
        if (!rank || *rank < 0 || out.order.size() >= 4096) {
            return false;
        }
        out.order.push_back(*rank);
    }
    return !out.order.empty();
}

std::optional<RingLine> parse_ring(std::string_view body) {
    RingLine line;
    if (!parse_ring_into(body, line)) {
        return std::nullopt;
    }
    return line;
}

namespace {

// "1/4/-1->0->-1": children, then the rank, then its parent.
std::optional<TreeEntry> read_tree_entry(TextCursor& cursor, int channel) {
    TreeEntry entry{.channel = channel};
    for (int i = 0; i < 64; ++i) {
        auto child = cursor.integer();
        if (!child) {
            return std::nullopt;
        }
        if (*child >= 0) {
            entry.children.push_back(*child);
        }
        if (cursor.consume("->")) {
            break;
        }
        if (!cursor.consume("/")) {
            return std::nullopt;
        }
    }
    auto rank = cursor.integer();
    if (!rank || *rank < 0 || !cursor.consume("->")) {
        return std::nullopt;
    }
    auto parent = cursor.integer();
    if (!parent) {
        return std::nullopt;
    }
    entry.rank = *rank;
    entry.parent = *parent;
    return entry;
}

}  // namespace

std::optional<std::vector<TreeEntry>> parse_trees(std::string_view body) {
    TextCursor cursor(trim_view(body));
    if (!cursor.consume("Trees ")) {
        return std::nullopt;
    }
    std::vector<TreeEntry> entries;
    cursor.skip_spaces();
    while (cursor.consume("[")) {
        auto channel = cursor.integer();
        if (!channel || !cursor.consume("]")) {
            return std::nullopt;
        }
        cursor.skip_spaces();
        auto entry = read_tree_entry(cursor, *channel);
        if (!entry || entries.size() >= 1024) {
            return std::nullopt;
        }
        entries.push_back(std::move(*entry));
        cursor.skip_spaces();
    }
    if (entries.empty()) {
        return std::nullopt;
    }
    return entries;
}

}  // namespace peergate::sources::nccl
