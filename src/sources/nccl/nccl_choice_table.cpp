// SPDX-License-Identifier: Apache-2.0
// The table of NCCL's choices: settings, graphs, rings and trees, each added once per
// distinct record, and the merge of a table read from later input.
#include "sources/nccl/nccl_choice_table.hpp"

#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/text_cursor.hpp"

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

void ChoiceTable::add_setting(const SettingLine& line) {
    if (const std::size_t slot = setting_slot(line.name); slot != kRefused) {
        add_setting_value(slot, line.value);
    }
}

std::size_t ChoiceTable::setting_slot(std::string_view name) {
    using Setting = std::pair<std::string, std::vector<std::string>>;
    const auto [slot, inserted] =
        slot_of(setting_index_, name, settings_.size(), sizeof(Setting) + name.size());
    if (inserted) {
        settings_.emplace_back(std::string(name), std::vector<std::string>{});
    }
    return slot;
}

void ChoiceTable::add_setting_value(std::size_t slot, std::string_view value) {
    auto& values = settings_[slot].second;
    if (values.size() < kMaxSettingValues &&
        std::find(values.begin(), values.end(), value) == values.end() &&
        admit(sizeof(std::string), value.size())) {
        values.emplace_back(value);
    }
}

void ChoiceTable::add_graph(std::string_view host, const GraphLine& line, std::uint64_t count) {
    const std::hash<std::string_view> text_hash;
    std::uint64_t hash = fmix64(text_hash(host) ^ pack(line.pattern, line.n_channels));
    hash = fmix64(hash ^ text_hash(line.intra_type));
    hash = fmix64(hash ^ text_hash(line.inter_type));
    const auto [slot, inserted] = graph_index_.find_or_insert(
        hash,
        static_cast<std::uint32_t>(graphs_.size()),
        [&](std::uint32_t at) {
            const auto& graph = graphs_[at];
            return graph.pattern == line.pattern && graph.n_channels == line.n_channels &&
                   same_text(graph.host, host) && graph.intra_type == line.intra_type &&
                   graph.inter_type == line.inter_type;
        },
        [&] {
            return admit(sizeof(model::NcclGraph),
                         host.size() + line.intra_type.size() + line.inter_type.size(),
                         count);
        });
    if (slot == kRefused) {
        return;
    }
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

void ChoiceTable::add_ring(std::uint32_t host_id, std::string_view host, const RingLine& line) {
    add_ring(host_id, host, line.channel, line.order);
}

void ChoiceTable::add_ring(std::uint32_t host_id,
                           std::string_view host,
                           int channel,
                           const std::vector<int>& order) {
    // One multiply per rank and one finaliser: ring lines are common, and fmix64 per
    // rank was a measurable share of them.
    std::uint64_t hash = pack(static_cast<int>(host_id), channel);
    for (const int rank : order) {
        hash = (hash ^ static_cast<std::uint32_t>(rank)) * 0x9E3779B97F4A7C15ULL;
    }
    hash = fmix64(hash);
    const auto [slot, inserted] = ring_index_.find_or_insert(
        hash,
        static_cast<std::uint32_t>(rings_.size()),
        [&](std::uint32_t at) {
            const auto& ring = rings_[at];
            return ring.channel == channel && ring.order == order && same_text(ring.host, host);
        },
        [&] { return admit(sizeof(model::NcclRing), host.size() + order.size() * sizeof(int)); });
    if (inserted) {
        rings_.push_back(model::NcclRing{std::string(host), channel, order});
    }
}

void ChoiceTable::add_trees(std::string_view host, std::vector<TreeEntry>&& entries) {
    for (auto& entry : entries) {
        add_tree(
            model::NcclTree{std::string(host),
                            entry.channel,
                            entry.rank,
                            entry.parent >= 0 ? std::optional<int>(entry.parent) : std::nullopt,
                            std::move(entry.children)});
    }
}

void ChoiceTable::add_tree(model::NcclTree&& tree) {
    key_.clear();
    fmt::format_to(std::back_inserter(key_), "{}|{}|{}", tree.host, tree.channel, tree.rank);
    const std::size_t bytes =
        sizeof(model::NcclTree) + tree.host.size() + tree.children.size() * sizeof(int);
    if (slot_of(tree_index_, key_, trees_.size(), bytes).second) {
        trees_.push_back(std::move(tree));
    }
}

std::pair<std::size_t, bool> ChoiceTable::slot_of(Index& index,
                                                  std::string_view key,
                                                  std::size_t next,
                                                  std::size_t entry_bytes) {
    if (auto found = index.find(key); found != index.end()) {
        return {found->second, false};
    }
    // The index keeps the key and a node: the overhead, charged once more.
    if (!admit(entry_bytes + kEntryOverheadBytes, key.size())) {
        return {kRefused, false};
    }
    index.emplace(std::string(key), next);
    return {next, true};
}

void ChoiceTable::merge_from(ChoiceTable&& later, InternedTexts& hosts) {
    // A setting keeps its first kMaxSettingValues distinct values: those of this table,
    // then later's in order. later kept its own first ones, enough to fill the rest.
    budget_.add_dropped(later.budget_);
    for (const auto& [name, values] : later.settings_) {
        const std::size_t slot = setting_slot(name);
        if (slot == kRefused) {
            budget_.drop(values.size());
            continue;
        }
        for (const auto& value : values) {
            add_setting_value(slot, value);
        }
    }
    for (const auto& graph : later.graphs_) {
        add_graph(graph.host,
                  GraphLine{graph.pattern, graph.n_channels, graph.intra_type, graph.inter_type},
                  graph.count);
    }
    for (const auto& ring : later.rings_) {
        add_ring(hosts.id_of(ring.host), ring.host, ring.channel, ring.order);
    }
    for (auto& tree : later.trees_) {
        add_tree(std::move(tree));
    }
}

void ChoiceTable::into(model::NcclLog& log) const {
    for (const auto& [name, values] : settings_) {
        log.settings.emplace_back(name, values.empty() ? std::string() : values.front());
        if (values.size() > 1) {
            log.conflicting_settings.emplace_back(name, values);
        }
    }
    log.graphs = graphs_;
    log.rings = rings_;
    log.trees = trees_;
}

}  // namespace peergate::sources::nccl
