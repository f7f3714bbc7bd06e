// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_topo_dumps.hpp"

#include <utility>

namespace peergate::sources::nccl {

namespace {

constexpr std::size_t kReaderBytes = kEntryOverheadBytes + sizeof(TopologyDumpReader);
constexpr std::size_t kHostBytes = kEntryOverheadBytes + sizeof(model::NcclHostTopology);
// A bus id as normalize_bus_id writes it: 16 hex digits at most.
constexpr std::size_t kBusIdBytes = 16;

}  // namespace

bool TopologyDumps::read(const NcclRecord& record) {
    if (TopologyDumpReader::is_dump_start(record.body)) {
        start(record);
        return true;
    }
    if (active_ == 0) {
        return false;
    }
    auto it = readers_.find(record.source);
    if (it == readers_.end() || !it->second.active()) {
        return false;
    }
    return read_line(it->second, record);
}

void TopologyDumps::start(const NcclRecord& record) {
    auto it = readers_.find(record.source);
    if (it == readers_.end()) {
        if (!budget_.admit(kReaderBytes + record.source.size())) {
            return;  // the dump is not read: its start line is counted dropped
        }
        reader_bytes_ += kReaderBytes + record.source.size();
        it = readers_.try_emplace(std::string(record.source)).first;
    }
    if (!it->second.active()) {
        ++active_;
    }
    it->second.start();
    // A dump's host is listed even when the dump shows no GPU.
    const std::string host(record.host);
    if (!topology_.contains(host) && admit_host(host)) {
        topology_.try_emplace(host);
    }
}

bool TopologyDumps::read_line(TopologyDumpReader& reader, const NcclRecord& record) {
    // A line adds at most kMaxAddedPerLine entries, each no longer than the line and the
    // id of the node above it, and one open node to its reader: checked before, charged
    // after.
    const std::size_t entry_bytes = kEntryOverheadBytes + record.body.size() + kBusIdBytes;
    const std::size_t most =
        TopologyDumpReader::kMaxAddedPerLine * entry_bytes + TopologyDumpReader::kMaxStepBytes;
    const auto host = topology_.find(std::string(record.host));
    const bool keep = host != topology_.end() && !reader.skipping() && budget_.fits(most);
    if (!keep) {
        reader.skip_rest();
    }
    model::NcclHostTopology none;  // what a skipping reader writes to: nothing
    const std::size_t peak = reader.peak_bytes();
    if (!reader.read(record.body, keep ? host->second : none)) {
        --active_;
        return false;
    }
    if (!keep) {
        budget_.drop();
        return true;
    }
    const std::size_t grown = reader.peak_bytes() - peak;
    budget_.admit(reader.last_added() * entry_bytes + grown);  // fits: checked above
    reader_bytes_ += grown;
    return true;
}

bool TopologyDumps::admit_host(const std::string& host) {
    return budget_.admit(kHostBytes + host.size());
}

void TopologyDumps::end_input() {
    budget_.release(reader_bytes_);
    reader_bytes_ = 0;
    readers_.clear();
    active_ = 0;
}

// Each entry is charged its key here, no more than the line that added it cost `later`:
// pieces that each kept within their share never overflow the merged budget.
void TopologyDumps::merge_from(TopologyDumps&& later) {
    budget_.add_dropped(later.budget_);
    for (auto& [host, from] : later.topology_) {
        auto at = topology_.find(host);
        if (at == topology_.end()) {
            if (!admit_host(host)) {
                continue;
            }
            at = topology_.try_emplace(host).first;
        }
        merge_host(at->second, from);
    }
    take_readers(later);
}

void TopologyDumps::merge_host(model::NcclHostTopology& topology, model::NcclHostTopology& from) {
    for (const auto& [bus, rank] : from.gpus) {
        auto [at, added] = topology.gpus.try_emplace(bus);
        if (added && !budget_.admit(kEntryOverheadBytes + bus.size())) {
            topology.gpus.erase(at);
            continue;
        }
        at->second = rank ? rank : at->second;  // a line that showed no rank only adds it
    }
    for (const auto& link : from.nvlinks) {
        if (!topology.nvlinks.contains(link) &&
            budget_.admit(kEntryOverheadBytes + link.first.size() + link.second.size())) {
            topology.nvlinks.insert(link);
        }
    }
    for (const auto& [nvswitch, gpus] : from.nvswitches) {
        auto at = topology.nvswitches.find(nvswitch);
        if (at == topology.nvswitches.end()) {
            if (!budget_.admit(kEntryOverheadBytes + nvswitch.size())) {
                continue;
            }
            at = topology.nvswitches.try_emplace(nvswitch).first;
        }
        for (const auto& gpu : gpus) {
            if (!at->second.contains(gpu) && budget_.admit(kEntryOverheadBytes + gpu.size())) {
                at->second.insert(gpu);
            }
        }
    }
}

// later's open dumps are where the input now stands; this one's are forgotten.
void TopologyDumps::take_readers(TopologyDumps& later) {
    budget_.release(reader_bytes_);
    readers_ = std::move(later.readers_);
    reader_bytes_ = later.reader_bytes_;
    active_ = later.active_;
    if (!budget_.admit(reader_bytes_)) {
        readers_.clear();  // counted dropped: what those dumps go on to print is not read
        reader_bytes_ = 0;
        active_ = 0;
    }
}

}  // namespace peergate::sources::nccl
