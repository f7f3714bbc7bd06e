// SPDX-License-Identifier: Apache-2.0
// peergate.nccl_log/v1. As text, the connections list is written directly, one object per
// line: building tens of thousands of ordered_json objects costs more than reading the log.
#include "report/nccl/log_json.hpp"

#include "report/doctor/json.hpp"
#include "report/nccl/diag_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace peergate::report::nccl {

namespace {

using Json = nlohmann::ordered_json;
using model::NcclTransport;

constexpr NcclTransport kTransports[] = {NcclTransport::p2p,
                                         NcclTransport::shm,
                                         NcclTransport::net,
                                         NcclTransport::collnet,
                                         NcclTransport::nvls};

template <typename T>
Json or_null(const std::optional<T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json text_or_null(const std::string& text) {
    return text.empty() ? Json(nullptr) : Json(text);
}

Json counts_to_json(const policy::nccl::NcclTransportCounts& counts) {
    Json out = Json::object();
    for (auto transport : kTransports) {
        out[std::string(model::to_string(transport))] = counts[static_cast<std::size_t>(transport)];
    }
    return out;
}

Json connection_to_json(const model::NcclConnection& c) {
    Json out{{"channel", c.channel},
             {"src_rank", c.src_rank},
             {"src_dev", or_null(c.src_dev)},
             {"dst_rank", or_null(c.dst_rank)},
             {"dst_dev", or_null(c.dst_dev)},
             {"transport", std::string(model::to_string(c.transport))},
             {"detail", c.detail},
             {"host", text_or_null(c.host)},
             {"count", c.count},
             {"conn_index", or_null(c.conn_index)},
             {"direction",
              c.direction == model::NcclDirection::none
                  ? Json(nullptr)
                  : Json(std::string(model::to_string(c.direction)))}};
    if (!c.src_bus_id.empty() || !c.dst_bus_id.empty()) {
        out["src_bus_id"] = text_or_null(c.src_bus_id);
        out["dst_bus_id"] = text_or_null(c.dst_bus_id);
    }
    return out;
}

Json rank_to_json(const model::NcclRank& r) {
    return Json{{"rank", r.rank},
                {"nranks", or_null(r.nranks)},
                {"host", text_or_null(r.host)},
                {"cuda_dev", or_null(r.cuda_dev)},
                {"nvml_dev", or_null(r.nvml_dev)},
                {"bus_id", text_or_null(r.bus_id)},
                {"comm_id", text_or_null(r.comm_id)},
                {"init_started", r.init_started},
                {"init_complete", r.init_complete}};
}

Json pair_to_json(const policy::nccl::NcclPair& p) {
    return Json{{"src_rank", p.src_rank},
                {"dst_rank", or_null(p.dst_rank)},
                {"hosts", p.hosts},
                {"lines", counts_to_json(p.lines)},
                {"channels", p.channels.size()},
                {"details", p.details},
                {"same_host", or_null(p.same_host)},
                {"nvlinked", or_null(p.nvlinked)},
                {"link_evidence", text_or_null(p.link_evidence)}};
}

// An object of keys known to be distinct, in their order. ordered_json's operator[] looks
// each key up along a vector: quadratic in the hundred thousand setting names of a hostile
// log (a minute of CPU), where appending is linear.
template <typename Pairs>
Json object_of_distinct(const Pairs& pairs) {
    Json::object_t object;
    object.reserve(pairs.size());
    for (const auto& [key, value] : pairs) {
        object.Container::emplace_back(key, value);
    }
    return Json(std::move(object));
}

Json topology_to_json(const std::map<std::string, model::NcclHostTopology>& topology) {
    Json out = Json::array();
    for (const auto& [host, dump] : topology) {
        Json gpus = Json::array();
        for (const auto& [bus, rank] : dump.gpus) {
            gpus.push_back(Json{{"bus_id", bus}, {"rank", or_null(rank)}});
        }
        Json links = Json::array();
        for (const auto& [a, b] : dump.nvlinks) {
            links.push_back(Json::array({a, b}));
        }
        const Json switches = object_of_distinct(dump.nvswitches);
        out.push_back(Json{{"host", text_or_null(host)},
                           {"gpus", gpus},
                           {"nvlinks", links},
                           {"nvswitches", switches}});
    }
    return out;
}

Json extras_to_json(const model::NcclLog& log) {
    Json graphs = Json::array();
    for (const auto& g : log.graphs) {
        graphs.push_back(Json{{"host", text_or_null(g.host)},
                              {"pattern", g.pattern},
                              {"n_channels", g.n_channels},
                              {"intra_type", g.intra_type},
                              {"inter_type", g.inter_type},
                              {"count", g.count}});
    }
    Json rings = Json::array();
    for (const auto& r : log.rings) {
        rings.push_back(
            Json{{"host", text_or_null(r.host)}, {"channel", r.channel}, {"order", r.order}});
    }
    Json trees = Json::array();
    for (const auto& t : log.trees) {
        trees.push_back(Json{{"host", text_or_null(t.host)},
                             {"channel", t.channel},
                             {"rank", t.rank},
                             {"parent", or_null(t.parent)},
                             {"children", t.children}});
    }
    return Json{{"graphs", graphs}, {"rings", rings}, {"trees", trees}};
}

// Records the parser counted but did not keep (the nccl_log_capped finding says why).
Json dropped_to_json(const model::NcclDroppedRecords& d) {
    return Json{{"connections", d.connections},
                {"ranks", d.ranks},
                {"choices", d.choices},
                {"gdr", d.gdr},
                {"topology", d.topology},
                {"diagnostics", d.diagnostics}};
}

Json gdr_line_to_json(const model::NcclGdrLine& g) {
    return Json{{"host", text_or_null(g.host)},
                {"net", text_or_null(g.net)},
                {"enabled", g.enabled},
                {"via", text_or_null(g.via)},
                {"gpu", text_or_null(g.gpu)},
                {"hca", g.hca},
                {"distance", or_null(g.distance)},
                {"limit", or_null(g.limit)},
                {"reason", text_or_null(g.reason)},
                {"text", model::to_text(g)},
                {"count", g.count}};
}

Json dma_buf_to_json(const std::map<std::string, std::set<int>>& devices) {
    Json out = Json::array();
    for (const auto& [host, set] : devices) {
        out.push_back(Json{{"host", text_or_null(host)}, {"devices", set}});
    }
    return out;
}

template <typename Items, typename ToJson>
Json each_to_json(const Items& items, ToJson to_json) {
    Json out = Json::array();
    for (const auto& item : items) {
        out.push_back(to_json(item));
    }
    return out;
}

// Stand-ins for the lists nccl_log_to_json_text writes itself, and how they read once
// dumped (a JSON string, its control bytes escaped).
constexpr const char* kConnectionsMarker = "\x01peergate-connections\x01";
constexpr const char* kPairsMarker = "\x01peergate-pairs\x01";
constexpr std::string_view kConnectionsDumped = "\"\\u0001peergate-connections\\u0001\"";
constexpr std::string_view kPairsDumped = "\"\\u0001peergate-pairs\\u0001\"";

// The document; with `markers`, "connections" and "pairs" hold the markers above instead.
Json nccl_log_document(const NcclLogReport& report, bool markers) {
    const auto& log = *report.log;
    const auto& analysis = *report.analysis;
    Json doc;
    doc["schema"] = "peergate.nccl_log/v1";
    doc["inputs"] = report.inputs;
    doc["topology_file"] = text_or_null(report.topology_file);
    doc["nccl_version"] = text_or_null(log.nccl_version);
    doc["connections"] =
        markers ? Json(kConnectionsMarker) : each_to_json(log.connections, connection_to_json);
    doc["transport_counts"] = counts_to_json(analysis.transport_counts);
    doc["ranks"] = each_to_json(log.ranks, rank_to_json);
    doc["settings"] = object_of_distinct(log.settings);
    doc["findings"] = each_to_json(analysis.findings, report::doctor::finding_to_json);
    doc["pairs"] = markers ? Json(kPairsMarker) : each_to_json(analysis.pairs, pair_to_json);
    const Json extras = extras_to_json(log);
    for (const auto& [key, value] : extras.items()) {
        doc[key] = value;
    }
    doc["gdr"] = each_to_json(log.gdr, gdr_line_to_json);
    doc["dma_buf_devices"] = dma_buf_to_json(log.dma_buf_devices);
    doc["topology"] = topology_to_json(log.topology);
    doc["diagnostics"] = diagnostics_to_json(analysis);
    doc["diagnostics_reports"] = diagnostics_reports_to_json(log);
    doc["ras"] = ras_to_json(log);
    doc["lines"] = Json{{"read", log.counts.lines},
                        {"records", log.counts.records},
                        {"connection_lines", log.counts.connection_lines},
                        {"skipped", log.counts.skipped},
                        {"dropped", dropped_to_json(log.counts.dropped)}};
    return doc;
}

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

// Text made in `text` and handed on whenever a chunk is full.
struct ChunkedWriter {
    static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

    const std::function<void(std::string_view)>& write;
    std::string text;

    void flush_when_full() {
        if (text.size() >= kChunkBytes) {
            flush();
        }
    }

    void flush() {
        write(text);
        text.clear();
    }
};

// `items` as a JSON array at the document's second level, one element per line.
template <typename Items, typename Append>
void append_list(ChunkedWriter& out, const Items& items, Append append_item) {
    if (items.empty()) {
        out.text += "[]";
        return;
    }
    out.text += "[\n";
    for (std::size_t i = 0; i < items.size(); ++i) {
        out.text += "    ";
        append_item(out.text, items[i]);
        out.text += i + 1 < items.size() ? ",\n" : "\n";
        out.flush_when_full();
    }
    out.text += "  ]";
}

}  // namespace

Json nccl_log_to_json(const NcclLogReport& report) {
    return nccl_log_document(report, false);
}

// A document holds about ten times the bytes of its text, so the two lists that grow with
// the job (connections, and pairs of ranks) are written one element at a time, each on one
// line: the same JSON, made with the text of the rest and one chunk in memory
// (docs/RELIABILITY.md: a log of distinct keys must not exhaust memory).
void write_nccl_log_json(const NcclLogReport& report,
                         const std::function<void(std::string_view)>& write) {
    const std::string text = nccl_log_document(report, true).dump(2, ' ', false, kReplace);
    const std::size_t connections_at = text.find(kConnectionsDumped);
    const std::size_t pairs_at = text.find(kPairsDumped);
    if (connections_at == std::string::npos || pairs_at == std::string::npos ||
        pairs_at < connections_at) {
        write(nccl_log_to_json(report).dump(2, ' ', false, kReplace));  // no marker: no key held it
        return;
    }
    ChunkedWriter out{write};
    out.text.append(text, 0, connections_at);
    append_list(out, report.log->connections, append_connection);
    out.text.append(text,
                    connections_at + kConnectionsDumped.size(),
                    pairs_at - connections_at - kConnectionsDumped.size());
    append_list(out, report.analysis->pairs, [](std::string& into, const auto& pair) {
        into += pair_to_json(pair).dump(-1, ' ', false, kReplace);
    });
    out.text.append(text, pairs_at + kPairsDumped.size());
    out.flush();
}

std::string nccl_log_to_json_text(const NcclLogReport& report) {
    std::string out;
    write_nccl_log_json(report, [&out](std::string_view piece) { out.append(piece); });
    return out;
}

}  // namespace peergate::report::nccl
