// SPDX-License-Identifier: Apache-2.0
// The connection table's keys (packing, hashing), its rarer paths (a new connection, a key
// too wide to pack) and the merge of a table read from later input.
#include "sources/nccl/nccl_connection_table.hpp"

#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/nccl_topo_dump.hpp"

#include <cstdint>
#include <string>

namespace peergate::sources::nccl {

std::size_t ConnectionTable::ConnectionKeyHash::operator()(const ConnectionKey& key) const {
    std::uint64_t h = fmix64(pack(static_cast<int>(key.host), static_cast<int>(key.detail)));
    h = fmix64(h ^ pack(key.channel, key.conn_index));
    h = fmix64(h ^ pack(key.src_rank, key.dst_rank));
    return static_cast<std::size_t>(
        fmix64(h ^ (std::uint64_t{key.direction} << 8 | key.transport)));
}

std::size_t ConnectionTable::PackedKeyHash::operator()(const PackedKey& key) const {
    return static_cast<std::size_t>(fmix64(key.ranks ^ fmix64(key.rest)));
}

std::optional<ConnectionTable::PackedKey> ConnectionTable::pack_key(const ConnectionKey& key) {
    // Ranks below 2^31 (dst -1: none), 2^20 hosts, 4096 details, channels and connection
    // indices below 4095: every real job. Anything else goes to the wide table.
    const bool fits = key.src_rank >= 0 && key.dst_rank >= -1 && key.dst_rank < INT32_MAX &&
                      key.host < (1U << 20) && key.detail < (1U << 12) && key.channel >= 0 &&
                      key.channel < 4096 && key.conn_index >= -1 && key.conn_index < 4095 &&
                      key.direction < 4 && key.transport < 8;
    if (!fits) {
        return std::nullopt;
    }
    return PackedKey{pack(key.dst_rank + 1, key.src_rank),
                     std::uint64_t{key.host} | std::uint64_t{key.detail} << 20 |
                         static_cast<std::uint64_t>(key.channel) << 32 |
                         static_cast<std::uint64_t>(key.conn_index + 1) << 44 |
                         std::uint64_t{key.direction} << 56 | std::uint64_t{key.transport} << 58};
}

void ConnectionTable::add_unpacked(const ConnectionKey& key,
                                   std::string_view host,
                                   const ConnectionLine& line) {
    flush_pending();  // keeps connections in the order their lines came
    store(
        host,
        line,
        connection_index_.count(
            key, ConnectionKeyHash{}(key), static_cast<std::uint32_t>(connections_.size()), 1, [&] {
                return admit(host, line.detail, 1);
            }));
}

void ConnectionTable::append(std::string_view host, const ConnectionLine& line) {
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

void ConnectionTable::merge_from(ConnectionTable&& later, InternedTexts& hosts) {
    flush_pending();
    later.flush_pending();
    std::vector<std::uint64_t> counts(later.connections_.size(), 0);
    const auto note = [&counts](std::uint32_t slot, std::uint64_t count) { counts[slot] = count; };
    later.packed_index_.for_each(note);
    later.connection_index_.for_each(note);
    budget_.add_dropped(later.budget_);
    for (std::size_t i = 0; i < later.connections_.size(); ++i) {
        auto& connection = later.connections_[i];
        // The key in this table's numbering of hosts and details.
        const std::uint32_t host_id = hosts.id_of(connection.host);
        const std::uint32_t detail_id = details_.id_of(connection.detail);
        if (host_id == kNoTextId || detail_id == kNoTextId) {
            budget_.drop(counts[i]);
            continue;
        }
        const ConnectionKey key{host_id,
                                detail_id,
                                connection.channel,
                                connection.conn_index.value_or(-1),
                                connection.src_rank,
                                connection.dst_rank.value_or(-1),
                                static_cast<std::uint8_t>(connection.direction),
                                static_cast<std::uint8_t>(connection.transport)};
        const auto next = static_cast<std::uint32_t>(connections_.size());
        const auto packed = pack_key(key);
        const auto admit_later = [&] {
            return admit(connection.host, connection.detail, counts[i]);
        };
        const bool inserted =
            packed ? packed_index_
                         .count(*packed, PackedKeyHash{}(*packed), next, counts[i], admit_later)
                         .second
                   : connection_index_
                         .count(key, ConnectionKeyHash{}(key), next, counts[i], admit_later)
                         .second;
        if (inserted) {
            connections_.push_back(
                std::move(connection));  // the first line's brackets, as in one pass
        }
    }
}

void ConnectionTable::into(model::NcclLog& log) const {
    log.connections = connections_;
    const auto set_count = [&log](std::uint32_t slot, std::uint64_t count) {
        log.connections[slot].count = count;
    };
    packed_index_.for_each(set_count);
    connection_index_.for_each(set_count);
}

}  // namespace peergate::sources::nccl
