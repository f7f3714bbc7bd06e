// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_log_parser.hpp"

#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/text_cursor.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <iterator>

namespace peergate::sources::nccl {

void NcclLogParser::feed(std::string_view chunk) {
    feed_lines(chunk);
    flush_pending();
}

void NcclLogParser::feed_lines(std::string_view chunk) {
    while (!chunk.empty()) {
        const std::size_t newline = chunk.find('\n');
        const std::string_view piece = chunk.substr(0, newline);
        if (newline == std::string_view::npos) {
            if (carry_.size() + piece.size() > kMaxLineBytes) {
                carry_overflow_ = true;
                carry_.clear();
            } else {
                carry_.append(piece);
            }
            return;
        }
        if (carry_.empty() && !carry_overflow_) {
            read_line(piece);
        } else if (carry_overflow_ || carry_.size() + piece.size() > kMaxLineBytes) {
            ++counts_.lines;
            ++counts_.skipped;
        } else {
            carry_.append(piece);
            read_line(carry_);
            flush_pending();  // before carry_ changes under the pending views
        }
        carry_.clear();
        carry_overflow_ = false;
        chunk.remove_prefix(newline + 1);
    }
}

void NcclLogParser::end_input() {
    if (carry_overflow_) {
        ++counts_.lines;
        ++counts_.skipped;
    } else if (!carry_.empty()) {
        feed_line(carry_);
    }
    carry_.clear();
    carry_overflow_ = false;
    dumps_.clear();
    active_dumps_ = 0;
}

void NcclLogParser::feed_line(std::string_view line) {
    read_line(line);
    flush_pending();
}

void NcclLogParser::read_line(std::string_view line) {
    ++counts_.lines;
    for_each_record(line, [this](const NcclRecord& record) {
        if (record.marked) {
            ++counts_.records;
        }
        read_record(record);
    });
}

bool NcclLogParser::read_dump_line(const NcclRecord& record) {
    if (TopologyDumpReader::is_dump_start(record.body)) {
        auto [it, inserted] = dumps_.try_emplace(std::string(record.source));
        if (!it->second.active()) {
            ++active_dumps_;
        }
        it->second.start();
        topology_[std::string(record.host)];
        return true;
    }
    if (active_dumps_ == 0) {
        return false;
    }
    auto it = dumps_.find(record.source);
    if (it == dumps_.end() || !it->second.active()) {
        return false;
    }
    if (it->second.read(record.body, topology_[std::string(record.host)])) {
        return true;
    }
    --active_dumps_;
    return false;
}

void NcclLogParser::read_record(const NcclRecord& record) {
    if (read_dump_line(record)) {
        return;
    }
    const std::string_view body = trim_view(record.body);
    if (body.empty()) {
        return;
    }
    switch (body.front()) {
        case 'C':
        case 'R':
            read_connection_or_ring(record.host, body);
            return;
        case 'N':
            if (auto setting = parse_setting(body)) {
                add_setting(*setting);
                return;
            }
            [[fallthrough]];  // "NET/IB : GPU Direct RDMA ..."
        case 'D':
        case 'G':
            if (gdr_.read(record.host, body)) {
                return;
            }
            break;
        case 'P':
            if (auto graph = parse_graph(body)) {
                add_graph(record.host, *graph);
            }
            return;
        case 'T':
            if (auto trees = parse_trees(body)) {
                add_trees(record.host, std::move(*trees));
            }
            return;
        default:
            break;
    }
    read_rank_or_version(record.host, body);
}

void NcclLogParser::read_rank_or_version(std::string_view host, std::string_view body) {
    if (body.find("comm 0x") != std::string_view::npos) {
        if (auto rank = parse_rank(body)) {
            add_rank(host, *rank);
        }
    } else if (version_.empty() && body.find("NCCL version ") != std::string_view::npos) {
        if (auto version = parse_version(body)) {
            version_ = std::string(*version);
        }
    }
}

void NcclLogParser::read_connection_or_ring(std::string_view host, std::string_view body) {
    // Most 'C'/'R' bodies are connections with " via": parsed first, such a line needs no
    // separate scan of looks_like_connection.
    const auto line = parse_connection(body);
    if (line && line->space_before_via) {
        ++counts_.connection_lines;
        add_connection(host, *line);
    } else if (looks_like_connection(body)) {
        ++counts_.connection_lines;
        if (line) {
            add_connection(host, *line);
        } else {
            ++counts_.skipped;
        }
    } else if (parse_ring_into(body, ring_scratch_)) {
        add_ring(host, ring_scratch_);
    }
}

void NcclLogParser::add_connection(std::string_view host, const ConnectionLine& line) {
    ConnectionKey key{host_id(host),
                      detail_id(line.detail),
                      line.channel,
                      line.conn_index.value_or(-1),
                      line.src_rank,
                      line.dst_rank.value_or(-1),
                      static_cast<std::uint8_t>(line.direction),
                      static_cast<std::uint8_t>(line.transport)};
    if (const auto packed = pack_key(key)) {
        queue_connection(host, line, *packed);
        return;
    }
    flush_pending();  // keeps connections in the order their lines came
    store_connection(
        host, line, connection_index_.count(key, static_cast<std::uint32_t>(connections_.size())));
}

void NcclLogParser::queue_connection(std::string_view host,
                                     const ConnectionLine& line,
                                     const PackedKey& key) {
    if (pending_count_ == kPrefetchDepth) {
        resolve_oldest_pending();
    }
    auto& entry = pending_[(pending_head_ + pending_count_) % kPrefetchDepth];
    entry = PendingConnection{key, PackedKeyHash{}(key), host, line};
    packed_index_.prefetch(entry.hash);
    ++pending_count_;
}

void NcclLogParser::resolve_oldest_pending() {
    const auto& entry = pending_[pending_head_];
    pending_head_ = (pending_head_ + 1) % kPrefetchDepth;
    --pending_count_;
    store_connection(entry.host,
                     entry.line,
                     packed_index_.count(
                         entry.key, entry.hash, static_cast<std::uint32_t>(connections_.size())));
}

void NcclLogParser::flush_pending() {
    while (pending_count_ > 0) {
        resolve_oldest_pending();
    }
}

void NcclLogParser::store_connection(std::string_view host,
                                     const ConnectionLine& line,
                                     std::pair<std::uint32_t, bool> found) {
    if (!found.second) {
        return;  // counted in the index
    }
    model::NcclConnection connection{.host = std::string(host),
                                     .channel = line.channel,
                                     .conn_index = line.conn_index,
                                     .src_rank = line.src_rank,
                                     .dst_rank = line.dst_rank,
                                     .src_dev = bracket_device(line.src_bracket),
                                     .dst_dev = bracket_device(line.dst_bracket),
                                     .direction = line.direction,
                                     .transport = line.transport,
                                     .detail = std::string(line.detail)};
    if (!line.src_bracket.empty() && !connection.src_dev) {
        connection.src_bus_id = normalize_bus_id(line.src_bracket);
    }
    if (!line.dst_bracket.empty() && !connection.dst_dev) {
        connection.dst_bus_id = normalize_bus_id(line.dst_bracket);
    }
    connections_.push_back(std::move(connection));
}

void NcclLogParser::add_rank(std::string_view host, const RankLine& line) {
    // Ranks are numbered per communicator; older logs print no commId, so their ranks
    // are told apart by communicator size only.
    std::string_view head = line.comm_id;
    if (head.empty()) {
        key_.clear();
        fmt::format_to(std::back_inserter(key_), "n{}", line.nranks.value_or(-1));
        head = key_;
    }
    auto& rank = ranks_[rank_slot(head, line.rank)];
    rank.nranks = line.nranks ? line.nranks : rank.nranks;
    if (!host.empty() && !same_text(rank.host, host)) {
        rank.host = std::string(host);
    }
    rank.cuda_dev = line.cuda_dev ? line.cuda_dev : rank.cuda_dev;
    rank.nvml_dev = line.nvml_dev ? line.nvml_dev : rank.nvml_dev;
    if (!line.bus_id.empty()) {
        rank.bus_id = normalize_bus_id(line.bus_id);
        rank_bus_set_[static_cast<std::size_t>(&rank - ranks_.data())] = true;
    }
    if (!same_text(rank.comm_id, line.comm_id)) {
        rank.comm_id = std::string(line.comm_id);
    }
    (line.complete ? rank.init_complete : rank.init_started) = true;
}

std::uint32_t NcclLogParser::rank_slot(std::string_view head, int rank) {
    // The head as a number (cached like hosts): no hashing or comparing of its text.
    const std::uint32_t head_id =
        recent_heads_.id_of(head, [this](std::string_view text) { return intern(heads_, text); });
    const std::uint64_t hash = fmix64(pack(static_cast<int>(head_id), rank));
    const auto [slot, inserted] = rank_index_.find_or_insert(
        hash, static_cast<std::uint32_t>(ranks_.size()), [&](std::uint32_t at) {
            return ranks_[at].rank == rank && rank_head_ids_[at] == head_id;
        });
    if (inserted) {
        ranks_.push_back(model::NcclRank{.rank = rank});
        rank_heads_.emplace_back(head);
        rank_head_ids_.push_back(head_id);
        rank_bus_set_.push_back(false);
    }
    return slot;
}

model::NcclLog NcclLogParser::result() const {
    model::NcclLog log;
    log.connections = connections_;
    const auto set_count = [&log](std::uint32_t slot, std::uint64_t count) {
        log.connections[slot].count = count;
    };
    packed_index_.for_each(set_count);
    connection_index_.for_each(set_count);
    log.ranks = ranks_;
    for (const auto& [name, values] : settings_) {
        log.settings.emplace_back(name, values.empty() ? std::string() : values.front());
        if (values.size() > 1) {
            log.conflicting_settings.emplace_back(name, values);
        }
    }
    log.graphs = graphs_;
    log.rings = rings_;
    log.trees = trees_;
    log.topology = topology_;
    log.nccl_version = version_;
    gdr_.into(log);
    log.counts = counts_;
    return log;
}

}  // namespace peergate::sources::nccl
