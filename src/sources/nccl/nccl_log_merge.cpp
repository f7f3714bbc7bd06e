// SPDX-License-Identifier: Apache-2.0
// NcclLogParser::merge_from: one parser takes in what another read from the input that
// followed its own, so pieces of one file parsed on several threads give the result a
// single parser reading the whole file gives, byte for byte.
#include "sources/nccl/nccl_log_parser.hpp"

#include <utility>

namespace peergate::sources::nccl {

void NcclLogParser::merge_from(NcclLogParser&& later) {
    flush_pending();
    later.flush_pending();
    merge_connections(later);
    merge_ranks(later);
    merge_settings_and_graphs(later);
    for (const auto& ring : later.rings_) {
        add_ring(ring.host, ring.channel, ring.order);
    }
    for (auto& tree : later.trees_) {
        add_tree(std::move(tree));
    }
    merge_topology(later);
    gdr_.merge_from(std::move(later.gdr_));
    if (version_.empty()) {
        version_ = std::move(later.version_);
    }
    counts_.lines += later.counts_.lines;
    counts_.records += later.counts_.records;
    counts_.connection_lines += later.counts_.connection_lines;
    counts_.skipped += later.counts_.skipped;
    // later's open state is where the input now stands.
    dumps_ = std::move(later.dumps_);
    active_dumps_ = later.active_dumps_;
    carry_ = std::move(later.carry_);
    carry_overflow_ = later.carry_overflow_;
}

void NcclLogParser::merge_connections(NcclLogParser& later) {
    std::vector<std::uint64_t> counts(later.connections_.size(), 0);
    const auto note = [&counts](std::uint32_t slot, std::uint64_t count) { counts[slot] = count; };
    later.packed_index_.for_each(note);
    later.connection_index_.for_each(note);
    for (std::size_t i = 0; i < later.connections_.size(); ++i) {
        auto& connection = later.connections_[i];
        // The key in this parser's numbering of hosts and details.
        const ConnectionKey key{host_id(connection.host),
                                detail_id(connection.detail),
                                connection.channel,
                                connection.conn_index.value_or(-1),
                                connection.src_rank,
                                connection.dst_rank.value_or(-1),
                                static_cast<std::uint8_t>(connection.direction),
                                static_cast<std::uint8_t>(connection.transport)};
        const auto next = static_cast<std::uint32_t>(connections_.size());
        const auto packed = pack_key(key);
        const bool inserted =
            packed ? packed_index_.count(*packed, PackedKeyHash{}(*packed), next, counts[i]).second
                   : connection_index_.count(key, ConnectionKeyHash{}(key), next, counts[i]).second;
        if (inserted) {
            connections_.push_back(
                std::move(connection));  // the first line's brackets, as in one pass
        }
    }
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

void NcclLogParser::merge_settings_and_graphs(NcclLogParser& later) {
    // A setting keeps its first kMaxSettingValues distinct values: those of this parser,
    // then later's in order. later kept its own first ones, enough to fill the rest.
    for (const auto& [name, values] : later.settings_) {
        const std::size_t slot = setting_slot(name);
        for (const auto& value : values) {
            add_setting_value(slot, value);
        }
    }
    for (const auto& graph : later.graphs_) {
        add_graph(graph.host,
                  GraphLine{graph.pattern, graph.n_channels, graph.intra_type, graph.inter_type},
                  graph.count);
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

}  // namespace peergate::sources::nccl
