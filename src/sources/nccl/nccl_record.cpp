// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_record.hpp"

#include "sources/nccl/text_cursor.hpp"

#include <cstring>

namespace peergate::sources::nccl {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

bool all_digits(std::string_view text) {
    if (text.empty()) {
        return false;
    }
    for (char c : text) {
        if (c < '0' || c > '9') {
            return false;
        }
    }
    return true;
}

// The last three colons of a prefix token (npos where it has fewer).
struct Colons {
    std::size_t last = std::string_view::npos;
    std::size_t middle = std::string_view::npos;
    std::size_t before = std::string_view::npos;
};

Colons colons_from_end(std::string_view token) {
    Colons colons;
    colons.last = token.rfind(':');
    if (colons.last != std::string_view::npos && colons.last > 0) {
        colons.middle = token.rfind(':', colons.last - 1);
        if (colons.middle != std::string_view::npos && colons.middle > 0) {
            colons.before = token.rfind(':', colons.middle - 1);
        }
    }
    return colons;
}

// host:pid:tid, possibly glued to a launcher prefix ("[1,0]<stdout>:host:pid:tid"):
// the host is the field before the last two colons.
void split_source(std::string_view token, const Colons& colons, RecordPrefix& prefix) {
    const std::size_t last = colons.last;
    const std::size_t middle = colons.middle;
    if (last == std::string_view::npos || last == 0 || middle == std::string_view::npos ||
        middle == 0 || !all_digits(token.substr(last + 1)) ||
        !all_digits(token.substr(middle + 1, last - middle - 1))) {
        return;
    }
    const std::size_t host_start = colons.before == std::string_view::npos ? 0 : colons.before + 1;
    if (middle <= host_start) {
        return;
    }
    prefix.host = token.substr(host_start, middle - host_start);
    prefix.source = token.substr(host_start);
}

}  // namespace

std::string_view without_launcher_tag(std::string_view line) {
    if (!line.starts_with('[')) {
        return line;
    }
    const auto close = line.find("]<std");
    if (close == std::string_view::npos || close > 16) {
        return line;
    }
    for (const std::string_view stream : {"]<stdout>:", "]<stderr>:"}) {
        if (line.substr(close).starts_with(stream)) {
            return line.substr(close + stream.size());
        }
    }
    return line;
}

std::size_t find_marker(std::string_view line, std::size_t from) {
    // memchr on the 'F' of "INFO": rare in NCCL text (the 'I' also starts "IPC", "IB",
    // "Init"), so a search mostly ends at a real marker or the line's end.
    constexpr std::size_t kF = 7;
    while (from + kMarker.size() <= line.size()) {
        const void* hit = std::memchr(line.data() + from + kF, 'F', line.size() - from - kF);
        if (hit == nullptr) {
            return std::string_view::npos;
        }
        const std::size_t at =
            static_cast<std::size_t>(static_cast<const char*>(hit) - line.data()) - kF;
        if (starts_with_text(line.substr(at), kMarker)) {
            return at;
        }
        from = at + 1;
    }
    return std::string_view::npos;
}

std::size_t read_leading_prefix(std::string_view line, RecordPrefix& prefix) {
    constexpr auto kNone = std::string_view::npos;
    std::size_t space = 0;
    Colons colons;  // noted on the way, so the token is not scanned again from its end
    while (space < line.size() && line[space] != ' ') {
        if (line[space] == '\t') {
            return kNone;
        }
        if (line[space] == ':') {
            colons = Colons{space, colons.last, colons.middle};
        }
        ++space;
    }
    if (space == 0 || space + 1 >= line.size() || line[space + 1] != '[') {
        return kNone;
    }
    std::size_t close = space + 2;
    while (close < line.size() && line[close] != ']') {
        if (is_space(line[close]) || line[close] == '[') {
            return kNone;
        }
        ++close;
    }
    const std::size_t marker = close + 2;
    if (marker > line.size() || line[close + 1] != ' ' ||
        !starts_with_text(line.substr(marker), kMarker)) {
        return kNone;
    }
    // What read_prefix(line, marker, 0) finds: the token before " [..]", here from 0.
    split_source(line.substr(0, space), colons, prefix);
    prefix.start = prefix.source.empty() ? space : 0;
    return marker;
}

RecordPrefix read_prefix(std::string_view line, std::size_t marker, std::size_t floor) {
    RecordPrefix prefix;
    std::size_t pos = marker;
    while (pos > floor && is_space(line[pos - 1])) {
        --pos;
    }
    if (pos > floor && line[pos - 1] == ']') {
        const std::size_t open = line.rfind('[', pos - 1);
        if (open != std::string_view::npos && open >= floor) {
            pos = open;
            while (pos > floor && is_space(line[pos - 1])) {
                --pos;
            }
        }
    }
    std::size_t start = pos;
    while (start > floor && !is_space(line[start - 1])) {
        --start;
    }
    const std::string_view token = line.substr(start, pos - start);
    split_source(token, colons_from_end(token), prefix);
    prefix.start = prefix.source.empty() ? pos : start;
    return prefix;
}

}  // namespace peergate::sources::nccl
