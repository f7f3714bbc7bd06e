// SPDX-License-Identifier: Apache-2.0
// What NCCL chose, as the parser gathers it: the settings it printed, its graphs (the
// pattern and bandwidth of each search), and its rings and trees per channel. One entry
// per distinct record, in the order the records first appeared.
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/entry_budget.hpp"
#include "sources/nccl/flat_index.hpp"
#include "sources/nccl/interned_texts.hpp"
#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/nccl_record_bodies.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace peergate::sources::nccl {

class ChoiceTable {
public:
    // Keeps records up to `limits.choice_bytes`; the rest are counted in dropped().
    explicit ChoiceTable(const NcclParserLimits& limits = {}) : budget_(limits.choice_bytes) {}

    void add_setting(const SettingLine& line);
    void add_graph(std::string_view host, const GraphLine& line, std::uint64_t count = 1);
    // `host_id` is the host's number in the parser's numbering of hosts: the ring's hash
    // starts from it, so a ring line hashes no host name.
    void add_ring(std::uint32_t host_id, std::string_view host, const RingLine& line);
    void add_trees(std::string_view host, std::vector<TreeEntry>&& entries);

    // Takes in what `later` read, as if its input had followed this table's: records keep
    // the order in which they first appeared, graph counts add up. `hosts` numbers the
    // hosts of later's rings as add_ring's host_id.
    void merge_from(ChoiceTable&& later, InternedTexts& hosts);

    // Writes the settings (and those with conflicting values), graphs, rings and trees to
    // `log`.
    void into(model::NcclLog& log) const;

    // Settings, graphs, rings and trees not kept: the table was full (entry_budget.hpp).
    std::uint64_t dropped() const { return budget_.dropped(); }

private:
    using Index = std::unordered_map<std::string, std::size_t, TransparentHash, std::equal_to<>>;

    // The slot of `key` in `index`, adding `next` when absent and `entry_bytes` (besides
    // the key) fit the budget; second is true when added, first kRefused when refused.
    // Keys are built in key_ and looked up as views, so a known key costs no allocation.
    std::pair<std::size_t, bool> slot_of(Index& index,
                                         std::string_view key,
                                         std::size_t next,
                                         std::size_t entry_bytes);

    // The cost of a kept record whose texts and lists hold `bytes`; a refused one counts
    // `records` dropped (a graph merged from another table stands for its count of lines).
    bool admit(std::size_t record_size, std::size_t bytes, std::uint64_t records = 1) {
        return budget_.admit(record_size + kEntryOverheadBytes + bytes, records);
    }

    std::size_t setting_slot(std::string_view name);
    void add_setting_value(std::size_t slot, std::string_view value);
    void add_ring(std::uint32_t host_id,
                  std::string_view host,
                  int channel,
                  const std::vector<int>& order);
    void add_tree(model::NcclTree&& tree);

    Index setting_index_;
    std::vector<std::pair<std::string, std::vector<std::string>>> settings_;  // all values
    HashedIndex graph_index_;
    std::vector<model::NcclGraph> graphs_;
    HashedIndex ring_index_;
    std::vector<model::NcclRing> rings_;
    Index tree_index_;
    std::vector<model::NcclTree> trees_;
    std::string key_;  // a tree's key, built here so a known one costs no allocation
    EntryBudget budget_;
};

}  // namespace peergate::sources::nccl
