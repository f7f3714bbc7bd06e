// SPDX-License-Identifier: Apache-2.0
// The parser's line handling (lines out of chunks, records out of lines, each record to
// its reader), the ranks, and merge_from, which merges each table in input order.
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
                choices_.add_setting(*setting);
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
                choices_.add_graph(record.host, *graph);
            }
            return;
        case 'T':
            if (auto trees = parse_trees(body)) {
                choices_.add_trees(record.host, std::move(*trees));
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
        connections_.add(hosts_.id_of(host), host, *line);
    } else if (looks_like_connection(body)) {
        ++counts_.connection_lines;
        if (line) {
            connections_.add(hosts_.id_of(host), host, *line);
        } else {
            ++counts_.skipped;
        }
    } else if (parse_ring_into(body, ring_scratch_)) {
        choices_.add_ring(hosts_.id_of(host), host, ring_scratch_);
    }
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
    const std::uint32_t head_id = heads_.id_of(head);
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
    connections_.into(log);
    log.ranks = ranks_;
    choices_.into(log);
    log.topology = topology_;
    log.nccl_version = version_;
    gdr_.into(log);
    log.counts = counts_;
    return log;
}

// merge_from: one parser takes in what another read from the input that followed its own,
// so pieces of one file parsed on several threads give the result a single parser reading
// the whole file gives, byte for byte.
void NcclLogParser::merge_from(NcclLogParser&& later) {
    connections_.merge_from(std::move(later.connections_), hosts_);  // flushes both first
    merge_ranks(later);
    choices_.merge_from(std::move(later.choices_), hosts_);
    merge_topology(later);
    gdr_.merge_from(std::move(later.gdr_));
    if (version_.empty()) {
        version_ = std::move(later.version_);
    }
    merge_counts(later.counts_);
    // later's open state is where the input now stands.
    dumps_ = std::move(later.dumps_);
    active_dumps_ = later.active_dumps_;
    carry_ = std::move(later.carry_);
    carry_overflow_ = later.carry_overflow_;
}

void NcclLogParser::merge_ranks(NcclLogParser& later) {
    for (std::size_t i = 0; i < later.ranks_.size(); ++i) {
        auto& from = later.ranks_[i];
        auto& rank = ranks_[rank_slot(later.rank_heads_[i], from.rank)];
        // Each field as the last line that gave it left it.
        rank.nranks = from.nranks ? from.nranks : rank.nranks;
        if (!from.host.empty()) {
            rank.host = std::move(from.host);
        }
        rank.cuda_dev = from.cuda_dev ? from.cuda_dev : rank.cuda_dev;
        rank.nvml_dev = from.nvml_dev ? from.nvml_dev : rank.nvml_dev;
        if (later.rank_bus_set_[i]) {
            rank.bus_id = std::move(from.bus_id);
            rank_bus_set_[static_cast<std::size_t>(&rank - ranks_.data())] = true;
        }
        rank.comm_id = std::move(from.comm_id);  // the same in every line of one head
        rank.init_started = rank.init_started || from.init_started;
        rank.init_complete = rank.init_complete || from.init_complete;
    }
}

void NcclLogParser::merge_topology(NcclLogParser& later) {
    for (auto& [host, from] : later.topology_) {
        auto& topology = topology_[host];
        for (const auto& [bus, rank] : from.gpus) {
            // A dump line that showed no rank only creates the entry.
            auto& entry = topology.gpus[bus];
            entry = rank ? rank : entry;
        }
        topology.nvlinks.merge(from.nvlinks);
        for (auto& [nvswitch, gpus] : from.nvswitches) {
            topology.nvswitches[nvswitch].merge(gpus);
        }
    }
}

void NcclLogParser::merge_counts(const model::NcclLineCounts& later) {
    counts_.lines += later.lines;
    counts_.records += later.records;
    counts_.connection_lines += later.connection_lines;
    counts_.skipped += later.skipped;
}

}  // namespace peergate::sources::nccl
