// SPDX-License-Identifier: Apache-2.0
// The connection line reader: keyword, channel, ranks and their brackets, direction and
// transport, each read once, left to right.
#include "sources/nccl/nccl_connection_body.hpp"

#include "sources/nccl/text_cursor.hpp"

#include <cstring>

namespace peergate::sources::nccl {

namespace {

using model::NcclDirection;
using model::NcclTransport;

// "R" or "R[x]"; the bracket text goes to `bracket`.
bool read_rank(TextCursor& cursor, int& rank, std::string_view& bracket) {
    auto value = cursor.integer();
    if (!value) {
        return false;
    }
    rank = *value;
    if (cursor.consume("[")) {
        bracket = cursor.until(']');
        return cursor.consume("]") && !bracket.empty();
    }
    return true;
}

NcclDirection read_direction(TextCursor& cursor) {
    cursor.skip_spaces();
    if (cursor.consume("[send]")) {
        return NcclDirection::send;
    }
    if (cursor.consume("[receive]")) {
        return NcclDirection::receive;
    }
    return NcclDirection::none;
}

// What follows "via ": the transport and its detail.
bool read_transport(std::string_view rest, ConnectionLine& line) {
    struct Prefix {
        std::string_view text;
        NcclTransport transport;
    };

    // clang-format off
    static constexpr Prefix kPrefixes[] = {
        {"P2P/", NcclTransport::p2p},         {"SHM/", NcclTransport::shm},
        {"NET/", NcclTransport::net},         {"COLLNET/", NcclTransport::collnet},
        {"NVLS/", NcclTransport::nvls},
    };
    // clang-format on
    // RCCL appends " comm 0x... nRanks ..." to some lines.
    if (auto comm = rest.find(" comm 0x"); comm != std::string_view::npos) {
        rest = rest.substr(0, comm);
    }
    rest = trim_view(rest);
    for (const auto& prefix : kPrefixes) {
        if (rest.size() > prefix.text.size() && starts_with_text(rest, prefix.text)) {
            line.transport = prefix.transport;
            line.detail = rest.substr(prefix.text.size());
            return true;
        }
    }
    if (rest == "NVLS") {
        line.transport = NcclTransport::nvls;
        line.detail = {};
        return true;
    }
    // NCCL 2.4 to 2.7: "via direct shared memory" (SHM) and bare "via direct pointer" (P2P).
    if (rest == "direct shared memory") {
        line.transport = NcclTransport::shm;
        line.detail = rest;
        return true;
    }
    if (rest == "direct pointer") {
        line.transport = NcclTransport::p2p;
        line.detail = rest;
        return true;
    }
    return false;
}

bool read_channel(TextCursor& cursor, ConnectionLine& line) {
    auto channel = cursor.integer();
    if (!channel) {
        return false;
    }
    line.channel = *channel;
    if (cursor.consume("/")) {
        line.conn_index = cursor.integer();
        if (!line.conn_index) {
            return false;
        }
    }
    cursor.skip_spaces();
    if (!cursor.consume(":")) {
        return false;
    }
    cursor.skip_spaces();
    return true;
}

std::string_view connection_keyword(TextCursor& cursor) {
    // By the first letter, so a line tries one or two keywords, not all four.
    const std::string_view rest = cursor.rest();
    if (rest.empty()) {
        return {};
    }
    if (rest.front() == 'R') {
        return cursor.consume("Ring ") ? "Ring " : std::string_view{};
    }
    for (std::string_view keyword : {"Channel ", "CollNet ", "Coll "}) {
        if (cursor.consume(keyword)) {
            return keyword;
        }
    }
    return {};
}

// Whether " via" occurs in `body`. Looking for the rare 'v' with memchr beats find(" via"),
// which stops at every space of the line.
bool contains_via(std::string_view body) {
    for (std::size_t from = 1; from + 3 <= body.size();) {
        const void* hit = std::memchr(body.data() + from, 'v', body.size() - from);
        if (hit == nullptr) {
            return false;
        }
        const auto at = static_cast<std::size_t>(static_cast<const char*>(hit) - body.data());
        if (body[at - 1] == ' ' && starts_with_text(body.substr(at), "via")) {
            return true;
        }
        from = at + 1;
    }
    return false;
}

}  // namespace

bool looks_like_connection(std::string_view body) {
    TextCursor cursor(body);
    cursor.skip_spaces();
    return !connection_keyword(cursor).empty() && contains_via(body);
}

std::optional<ConnectionLine> parse_connection(std::string_view body) {
    TextCursor cursor(body);
    cursor.skip_spaces();
    const std::string_view keyword = connection_keyword(cursor);
    ConnectionLine line;
    if (keyword.empty() || !read_channel(cursor, line) ||
        !read_rank(cursor, line.src_rank, line.src_bracket)) {
        return std::nullopt;
    }
    const bool coll = keyword.front() == 'C' && keyword[1] == 'o';  // "CollNet " or "Coll "
    if (!coll) {
        cursor.skip_spaces();
        int dst = 0;
        if (!cursor.consume("->")) {
            return std::nullopt;
        }
        cursor.skip_spaces();
        if (!read_rank(cursor, dst, line.dst_bracket)) {
            return std::nullopt;
        }
        line.dst_rank = dst;
    }
    line.direction = read_direction(cursor);
    cursor.skip_spaces();
    line.space_before_via = cursor.position() > 0 && body[cursor.position() - 1] == ' ';
    if (!cursor.consume("via ") || !read_transport(cursor.rest(), line)) {
        return std::nullopt;
    }
    if (coll && line.transport != NcclTransport::collnet) {
        return std::nullopt;
    }
    return line;
}

std::optional<int> bracket_device(std::string_view bracket) {
    if (bracket.empty() || bracket.size() > 3) {
        return std::nullopt;
    }
    int value = 0;
    for (char c : bracket) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        value = value * 10 + (c - '0');
    }
    return value;
}

}  // namespace peergate::sources::nccl
