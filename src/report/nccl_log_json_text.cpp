// SPDX-License-Identifier: Apache-2.0
// peergate.nccl_log/v1 as text. The connections list is written directly, one object per
// line: building tens of thousands of ordered_json objects costs more than reading the log.
#include "report/nccl_log_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace peergate::report {

namespace detail {
nlohmann::ordered_json nccl_log_document(const NcclLogReport& report,
                                         const std::string& placeholder);
}  // namespace detail

namespace {

constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;

// A JSON string; plain ASCII is written as is, anything else goes through nlohmann
// (escapes, and invalid UTF-8 replaced).
void append_string(std::string& out, std::string_view text) {
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\';
    });
    if (plain) {
        out += '"';
        out.append(text);
        out += '"';
    } else {
        out += nlohmann::ordered_json(std::string(text)).dump(-1, ' ', false, kReplace);
    }
}

void append_optional(std::string& out, const std::optional<int>& value) {
    if (value) {
        fmt::format_to(std::back_inserter(out), "{}", *value);
    } else {
        out += "null";
    }
}

void append_text_or_null(std::string& out, const std::string& text) {
    if (text.empty()) {
        out += "null";
    } else {
        append_string(out, text);
    }
}

// The same fields, in the same order, as connection_to_json.
void append_connection(std::string& out, const model::NcclConnection& c) {
    fmt::format_to(std::back_inserter(out),
                   "{{\"channel\": {}, \"src_rank\": {}, \"src_dev\": ",
                   c.channel,
                   c.src_rank);
    append_optional(out, c.src_dev);
    out += ", \"dst_rank\": ";
    append_optional(out, c.dst_rank);
    out += ", \"dst_dev\": ";
    append_optional(out, c.dst_dev);
    fmt::format_to(std::back_inserter(out),
                   ", \"transport\": \"{}\", \"detail\": ",
                   model::to_string(c.transport));
    append_string(out, c.detail);
    out += ", \"host\": ";
    append_text_or_null(out, c.host);
    fmt::format_to(std::back_inserter(out), ", \"count\": {}, \"conn_index\": ", c.count);
    append_optional(out, c.conn_index);
    out += ", \"direction\": ";
    if (c.direction == model::NcclDirection::none) {
        out += "null";
    } else {
        fmt::format_to(std::back_inserter(out), "\"{}\"", model::to_string(c.direction));
    }
    if (!c.src_bus_id.empty() || !c.dst_bus_id.empty()) {
        out += ", \"src_bus_id\": ";
        append_text_or_null(out, c.src_bus_id);
        out += ", \"dst_bus_id\": ";
        append_text_or_null(out, c.dst_bus_id);
    }
    out += '}';
}

}  // namespace

std::string nccl_log_to_json_text(const NcclLogReport& report) {
    const auto& connections = report.log->connections;
    if (connections.empty()) {
        return detail::nccl_log_document(report, {}).dump(2, ' ', false, kReplace);
    }
    const std::string placeholder = "\x01peergate-connections\x01";
    std::string text = detail::nccl_log_document(report, placeholder).dump(2, ' ', false, kReplace);
    const std::string marker = "\"\\u0001peergate-connections\\u0001\"";
    const std::size_t at = text.find(marker);
    if (at == std::string::npos) {
        return nccl_log_to_json(report).dump(2, ' ', false, kReplace);
    }
    std::string list = "[\n";
    list.reserve(connections.size() * 200);
    for (std::size_t i = 0; i < connections.size(); ++i) {
        list += "    ";
        append_connection(list, connections[i]);
        list += i + 1 < connections.size() ? ",\n" : "\n";
    }
    list += "  ]";
    text.replace(at, marker.size(), list);
    return text;
}

}  // namespace peergate::report
