// SPDX-License-Identifier: Apache-2.0
// The parser's line handling (lines out of chunks, records out of lines, each record to
// its reader) and merge_from, which merges each table in input order.
#include "sources/nccl/nccl_log_parser.hpp"

#include "sources/nccl/text_cursor.hpp"

#include <cstdint>

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
    dumps_.end_input();
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

void NcclLogParser::read_record(const NcclRecord& record) {
    if (dumps_.read(record)) {
        return;
    }
    const std::string_view body = trim_view(record.body);
    if (body.empty() || diag_.read(record.host, body, record.marked)) {
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
            ranks_.add(host, *rank);
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

model::NcclLog NcclLogParser::result() const {
    model::NcclLog log;
    connections_.into(log);
    ranks_.into(log);
    choices_.into(log);
    dumps_.into(log);
    log.nccl_version = version_;
    gdr_.into(log);
    diag_.into(log);
    log.counts = counts_;
    log.counts.dropped = {.connections = connections_.dropped(),
                          .ranks = ranks_.dropped(),
                          .choices = choices_.dropped(),
                          .gdr = gdr_.dropped(),
                          .topology = dumps_.dropped(),
                          .diagnostics = diag_.dropped()};
    return log;
}

std::uint64_t NcclLogParser::dropped() const {
    return connections_.dropped() + ranks_.dropped() + choices_.dropped() + gdr_.dropped() +
           dumps_.dropped() + diag_.dropped();
}

// merge_from: one parser takes in what another read from the input that followed its own,
// so pieces of one file parsed on several threads give the result a single parser reading
// the whole file gives, byte for byte.
void NcclLogParser::merge_from(NcclLogParser&& later) {
    connections_.merge_from(std::move(later.connections_), hosts_);  // flushes both first
    ranks_.merge_from(std::move(later.ranks_));
    choices_.merge_from(std::move(later.choices_), hosts_);
    dumps_.merge_from(std::move(later.dumps_));  // later's open dumps become this one's
    gdr_.merge_from(std::move(later.gdr_));
    diag_.merge_from(std::move(later.diag_));
    if (version_.empty()) {
        version_ = std::move(later.version_);
    }
    merge_counts(later.counts_);
    // later's open state is where the input now stands.
    carry_ = std::move(later.carry_);
    carry_overflow_ = later.carry_overflow_;
}

void NcclLogParser::merge_counts(const model::NcclLineCounts& later) {
    counts_.lines += later.lines;
    counts_.records += later.records;
    counts_.connection_lines += later.connection_lines;
    counts_.skipped += later.skipped;
}

}  // namespace peergate::sources::nccl
