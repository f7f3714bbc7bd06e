// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_rank_table.hpp"

#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/nccl_topo_dump.hpp"
#include "sources/nccl/text_cursor.hpp"

#include <fmt/format.h>

#include <iterator>

namespace peergate::sources::nccl {

namespace {

// A busId as normalize_bus_id writes it: 16 hex digits at most, counted with the entry.
constexpr std::size_t kBusIdBytes = 16;

}  // namespace

void RankTable::add(std::string_view host, const RankLine& line) {
    // Ranks are numbered per communicator; older logs print no commId, so their ranks
    // are told apart by communicator size only.
    std::string_view head = line.comm_id;
    if (head.empty()) {
        key_.clear();
        fmt::format_to(std::back_inserter(key_), "n{}", line.nranks.value_or(-1));
        head = key_;
    }
    const std::uint32_t slot = slot_of(head, line.rank, host);
    if (slot == kRefused) {
        return;
    }
    auto& rank = ranks_[slot];
    rank.nranks = line.nranks ? line.nranks : rank.nranks;
    set_host(rank, host);
    rank.cuda_dev = line.cuda_dev ? line.cuda_dev : rank.cuda_dev;
    rank.nvml_dev = line.nvml_dev ? line.nvml_dev : rank.nvml_dev;
    if (!line.bus_id.empty()) {
        rank.bus_id = normalize_bus_id(line.bus_id);
        bus_set_[slot] = true;
    }
    if (!same_text(rank.comm_id, line.comm_id)) {
        rank.comm_id = std::string(line.comm_id);  // the head itself when given: counted
    }
    (line.complete ? rank.init_complete : rank.init_started) = true;
}

std::uint32_t RankTable::slot_of(std::string_view head, int rank, std::string_view host) {
    // The head as a number (cached like hosts): no hashing or comparing of its text.
    const std::uint32_t head_id = heads_.id_of(head);
    if (head_id == kNoTextId) {
        budget_.drop();
        return kRefused;
    }
    const std::uint64_t hash = fmix64(pack(static_cast<int>(head_id), rank));
    const auto [slot, inserted] = index_.find_or_insert(
        hash,
        static_cast<std::uint32_t>(ranks_.size()),
        [&](std::uint32_t at) { return ranks_[at].rank == rank && head_ids_[at] == head_id; },
        [&] {
            // The head is held twice (its text and the comm id), the host and busId once.
            return budget_.admit(sizeof(model::NcclRank) + sizeof(std::string) +
                                 kEntryOverheadBytes + 2 * head.size() + host.size() + kBusIdBytes);
        });
    if (inserted) {
        ranks_.push_back(model::NcclRank{.rank = rank, .host = std::string(host)});
        head_texts_.emplace_back(head);
        head_ids_.push_back(head_id);
        bus_set_.push_back(false);
    }
    return slot;
}

void RankTable::set_host(model::NcclRank& rank, std::string_view host) {
    if (host.empty() || same_text(rank.host, host)) {
        return;
    }
    if (host.size() > rank.host.size() && !budget_.admit(host.size() - rank.host.size())) {
        return;  // counted as a dropped line
    }
    rank.host = std::string(host);
}

// Each field as the last line that gave it left it: later's values win where it saw any.
void RankTable::merge_from(RankTable&& later) {
    budget_.add_dropped(later.budget_);
    for (std::size_t i = 0; i < later.ranks_.size(); ++i) {
        auto& from = later.ranks_[i];
        const std::uint32_t slot = slot_of(later.head_texts_[i], from.rank, from.host);
        if (slot == kRefused) {
            continue;
        }
        auto& rank = ranks_[slot];
        rank.nranks = from.nranks ? from.nranks : rank.nranks;
        set_host(rank, from.host);
        rank.cuda_dev = from.cuda_dev ? from.cuda_dev : rank.cuda_dev;
        rank.nvml_dev = from.nvml_dev ? from.nvml_dev : rank.nvml_dev;
        if (later.bus_set_[i]) {
            rank.bus_id = std::move(from.bus_id);
            bus_set_[slot] = true;
        }
        rank.comm_id = std::move(from.comm_id);  // the same in every line of one head
        rank.init_started = rank.init_started || from.init_started;
        rank.init_complete = rank.init_complete || from.init_complete;
    }
}

}  // namespace peergate::sources::nccl
