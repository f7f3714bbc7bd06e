// SPDX-License-Identifier: Apache-2.0
// What NCCL chose, as NcclLogParser gathers it: the settings it printed, its graphs (the
// pattern and bandwidth of each search), and its rings and trees per channel.
#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <utility>

namespace peergate::sources::nccl {

namespace {

// A setting keeps its first values only: a log of thousands of ranks repeats them.
constexpr std::size_t kMaxSettingValues = 16;

}  // namespace

void NcclLogParser::add_setting(const SettingLine& line) {
    add_setting_value(setting_slot(line.name), line.value);
}

std::size_t NcclLogParser::setting_slot(std::string_view name) {
    const auto [slot, inserted] = slot_of(setting_index_, name, settings_.size());
    if (inserted) {
        settings_.emplace_back(std::string(name), std::vector<std::string>{});
    }
    return slot;
}

void NcclLogParser::add_setting_value(std::size_t slot, std::string_view value) {
    auto& values = settings_[slot].second;
    if (values.size() < kMaxSettingValues &&
        std::find(values.begin(), values.end(), value) == values.end()) {
        values.emplace_back(value);
    }
}

void NcclLogParser::add_graph(std::string_view host, const GraphLine& line, std::uint64_t count) {
    const std::hash<std::string_view> text_hash;
    std::uint64_t hash = fmix64(text_hash(host) ^ pack(line.pattern, line.n_channels));
    hash = fmix64(hash ^ text_hash(line.intra_type));
    hash = fmix64(hash ^ text_hash(line.inter_type));
    const auto [slot, inserted] = graph_index_.find_or_insert(
        hash, static_cast<std::uint32_t>(graphs_.size()), [&](std::uint32_t at) {
            const auto& graph = graphs_[at];
            return graph.pattern == line.pattern && graph.n_channels == line.n_channels &&
                   same_text(graph.host, host) && graph.intra_type == line.intra_type &&
                   graph.inter_type == line.inter_type;
        });
    if (!inserted) {
        graphs_[slot].count += count;
        return;
    }
    graphs_.push_back(model::NcclGraph{std::string(host),
                                       line.pattern,
                                       line.n_channels,
                                       std::string(line.intra_type),
                                       std::string(line.inter_type),
                                       count});
}

void NcclLogParser::add_ring(std::string_view host, const RingLine& line) {
    add_ring(host, line.channel, line.order);
}

void NcclLogParser::add_ring(std::string_view host, int channel, const std::vector<int>& order) {
    // One multiply per rank and one finaliser: ring lines are common, and fmix64 per
    // rank was a measurable share of them.
    std::uint64_t hash = pack(static_cast<int>(host_id(host)), channel);
    for (const int rank : order) {
        hash = (hash ^ static_cast<std::uint32_t>(rank)) * 0x9E3779B97F4A7C15ULL;
    }
    hash = fmix64(hash);
    const auto [slot, inserted] = ring_index_.find_or_insert(
        hash, static_cast<std::uint32_t>(rings_.size()), [&](std::uint32_t at) {
            const auto& ring = rings_[at];
            return ring.channel == channel && ring.order == order && same_text(ring.host, host);
        });
    if (inserted) {
        rings_.push_back(model::NcclRing{std::string(host), channel, order});
    }
}

void NcclLogParser::add_trees(std::string_view host, std::vector<TreeEntry>&& entries) {
    for (auto& entry : entries) {
        add_tree(
            model::NcclTree{std::string(host),
                            entry.channel,
                            entry.rank,
                            entry.parent >= 0 ? std::optional<int>(entry.parent) : std::nullopt,
                            std::move(entry.children)});
    }
}

void NcclLogParser::add_tree(model::NcclTree&& tree) {
    key_.clear();
    fmt::format_to(std::back_inserter(key_), "{}|{}|{}", tree.host, tree.channel, tree.rank);
    if (slot_of(tree_index_, key_, trees_.size()).second) {
        trees_.push_back(std::move(tree));
    }
}

}  // namespace peergate::sources::nccl
