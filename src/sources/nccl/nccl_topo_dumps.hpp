// SPDX-License-Identifier: Apache-2.0
// The topology dumps of an NCCL log: each printing thread (a record's source) may have a
// dump open, read by its own TopologyDumpReader into the topology of the record's host.
// What they keep is bounded by the parser's topology budget (entry_budget.hpp).
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/entry_budget.hpp"
#include "sources/nccl/nccl_hash.hpp"
#include "sources/nccl/nccl_record.hpp"
#include "sources/nccl/nccl_topo_dump.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>

namespace peergate::sources::nccl {

class TopologyDumps {
public:
    explicit TopologyDumps(const NcclParserLimits& limits = {}) : budget_(limits.topology_bytes) {}

    // True when `record` started a dump or was a line of an open one.
    bool read(const NcclRecord& record);

    // True while a dump is open: the next line may belong to it.
    bool open() const { return active_ != 0; }

    // The input ended: no dump goes on into the next one.
    void end_input();

    // Takes in the topology `later` read from the input that followed this one's; later's
    // open dumps become this one's.
    void merge_from(TopologyDumps&& later);

    void into(model::NcclLog& log) const { log.topology = topology_; }

    // Dump lines not kept (and dumps not read): the budget was spent.
    std::uint64_t dropped() const { return budget_.dropped(); }

private:
    void start(const NcclRecord& record);
    bool read_line(TopologyDumpReader& reader, const NcclRecord& record);
    bool admit_host(const std::string& host);
    void merge_host(model::NcclHostTopology& topology, model::NcclHostTopology& from);
    void take_readers(TopologyDumps& later);

    std::unordered_map<std::string, TopologyDumpReader, TransparentHash, std::equal_to<>> readers_;
    std::size_t reader_bytes_ = 0;  // what the readers are charged, given back at end_input
    std::size_t active_ = 0;
    std::map<std::string, model::NcclHostTopology> topology_;
    EntryBudget budget_;
};

}  // namespace peergate::sources::nccl
