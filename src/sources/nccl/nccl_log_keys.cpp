// SPDX-License-Identifier: Apache-2.0
// The connection table's keys: packing, hashing and interning of hosts and details. Kept
// apart from the line handling in nccl_log_parser.cpp; both define NcclLogParser members.
#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

#include <cstdint>
#include <string_view>

namespace peergate::sources::nccl {

std::size_t NcclLogParser::ConnectionKeyHash::operator()(const ConnectionKey& key) const {
    std::uint64_t h = fmix64(pack(static_cast<int>(key.host), static_cast<int>(key.detail)));
    h = fmix64(h ^ pack(key.channel, key.conn_index));
    h = fmix64(h ^ pack(key.src_rank, key.dst_rank));
    return static_cast<std::size_t>(
        fmix64(h ^ (std::uint64_t{key.direction} << 8 | key.transport)));
}

std::size_t NcclLogParser::PackedKeyHash::operator()(const PackedKey& key) const {
    return static_cast<std::size_t>(fmix64(key.ranks ^ fmix64(key.rest)));
}

std::optional<NcclLogParser::PackedKey> NcclLogParser::pack_key(const ConnectionKey& key) {
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

std::uint32_t NcclLogParser::intern(Interned& table, std::string_view text) {
    if (auto found = table.find(text); found != table.end()) {
        return found->second;
    }
    const auto id = static_cast<std::uint32_t>(table.size());
    table.emplace(std::string(text), id);
    return id;
}

std::uint32_t NcclLogParser::host_id(std::string_view host) {
    return recent_hosts_.id_of(host,
                               [this](std::string_view text) { return intern(hosts_, text); });
}

std::pair<std::size_t, bool> NcclLogParser::slot_of(Index& index,
                                                    std::string_view key,
                                                    std::size_t next) {
    if (auto found = index.find(key); found != index.end()) {
        return {found->second, false};
    }
    index.emplace(std::string(key), next);
    return {next, true};
}

std::uint32_t NcclLogParser::detail_id(std::string_view detail) {
    return recent_details_.id_of(detail,
                                 [this](std::string_view text) { return intern(details_, text); });
}

}  // namespace peergate::sources::nccl
