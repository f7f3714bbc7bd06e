// SPDX-License-Identifier: Apache-2.0
#include "policy/nccl/analysis.hpp"

#include "policy/nccl/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

namespace peergate::policy::nccl {

namespace {

using model::NcclTransport;

std::size_t slot(NcclTransport transport) {
    return static_cast<std::size_t>(transport);
}

template <typename Field>
void merge_field(Field& into, const Field& from, bool known, bool& ambiguous) {
    if (!known) {
        return;
    }
    if (into == Field{}) {
        into = from;
    } else if (into != from) {
        ambiguous = true;
    }
}

void merge_place(NcclRankPlace& into, const NcclRankPlace& from) {
    merge_field(into.host, from.host, !from.host.empty(), into.ambiguous);
    merge_field(into.bus_id, from.bus_id, !from.bus_id.empty(), into.ambiguous);
    merge_field(into.nvml_dev, from.nvml_dev, from.nvml_dev.has_value(), into.ambiguous);
}

const model::NcclHostTopology* dump_for_host(const model::NcclLog& log, const std::string& host) {
    if (auto it = log.topology.find(host); it != log.topology.end()) {
        return &it->second;
    }
    // A pasted dump without prefixes belongs to the only host there is.
    if (auto it = log.topology.find(""); it != log.topology.end() && log.topology.size() == 1) {
        return &it->second;
    }
    return nullptr;
}

// The smi index of a rank's GPU in `topology`: its NVML device, else its bus id.
std::optional<int> index_in(const model::Topology& topology, const NcclRankPlace& place) {
    if (place.nvml_dev && topology.position_of(*place.nvml_dev)) {
        return place.nvml_dev;
    }
    for (const auto& gpu : topology.gpus) {
        if (gpu.pci && !place.bus_id.empty() && nccl_bus_id(*gpu.pci) == place.bus_id) {
            return gpu.index;
        }
    }
    return std::nullopt;
}

void judge_link(NcclPair& pair,
                const NcclRankPlace& src,
                const NcclRankPlace& dst,
                const model::NcclLog& log,
                const model::Topology* topology) {
    if (topology != nullptr) {
        auto a = index_in(*topology, src);
        auto b = index_in(*topology, dst);
        if (a && b) {
            const auto label = topology->label(*a, *b);
            pair.nvlinked = label && label->is_nvlink();
            pair.link_evidence = fmt::format("--topology: GPU {} to GPU {} is {}",
                                             *a,
                                             *b,
                                             label ? label->to_token() : "unknown");
            return;
        }
    }
    const auto* dump = dump_for_host(log, src.host);
    if (dump != nullptr && !src.bus_id.empty() && !dst.bus_id.empty() &&
        dump->gpus.contains(src.bus_id) && dump->gpus.contains(dst.bus_id)) {
        pair.nvlinked = dump->nvlinked(src.bus_id, dst.bus_id);
        pair.link_evidence =
            fmt::format("NCCL's topology dump: {} and {} {}",
                        src.bus_id,
                        dst.bus_id,
                        *pair.nvlinked ? "share NVLink" : "have no NVLink between them");
    }
}

std::vector<NcclPair> collect_pairs(const model::NcclLog& log, NcclTransportCounts& totals) {
    std::map<std::pair<int, int>, NcclPair> pairs;
    for (const auto& connection : log.connections) {
        const int dst = connection.dst_rank.value_or(-1);
        auto& pair = pairs[{connection.src_rank, dst}];
        pair.src_rank = connection.src_rank;
        pair.dst_rank = connection.dst_rank;
        if (!connection.host.empty()) {
            pair.hosts.insert(connection.host);
        }
        pair.lines[slot(connection.transport)] += connection.count;
        totals[slot(connection.transport)] += connection.count;
        pair.channels.insert(connection.channel);
        const auto transport = model::to_string(connection.transport);
        pair.details.insert(connection.detail.empty()
                                ? std::string(transport)
                                : fmt::format("{}/{}", transport, connection.detail));
    }
    std::vector<NcclPair> out;
    out.reserve(pairs.size());
    for (auto& [key, pair] : pairs) {
        out.push_back(std::move(pair));
    }
    return out;
}

void place_pair(NcclPair& pair,
                const std::map<int, NcclRankPlace>& places,
                const model::NcclLog& log,
                const model::Topology* topology) {
    if (!pair.dst_rank) {
        return;
    }
    // P2P and SHM only connect GPUs of one host, whatever the rank lines say.
    const bool intra_node =
        pair.lines[slot(NcclTransport::p2p)] + pair.lines[slot(NcclTransport::shm)] > 0;
    auto src = places.find(pair.src_rank);
    auto dst = places.find(*pair.dst_rank);
    NcclRankPlace src_place = src != places.end() ? src->second : NcclRankPlace{};
    NcclRankPlace dst_place = dst != places.end() ? dst->second : NcclRankPlace{};
    if (src_place.ambiguous || dst_place.ambiguous) {
        return;
    }
    if (intra_node && pair.hosts.size() == 1) {
        pair.same_host = true;
        src_place.host = src_place.host.empty() ? *pair.hosts.begin() : src_place.host;
    } else if (!src_place.host.empty() && !dst_place.host.empty()) {
        pair.same_host = src_place.host == dst_place.host;
    }
    if (pair.same_host.value_or(false)) {
        judge_link(pair, src_place, dst_place, log, topology);
    }
}

}  // namespace

std::uint64_t NcclPair::total() const {
    std::uint64_t sum = 0;
    for (auto count : lines) {
        sum += count;
    }
    return sum;
}

bool NcclAnalysis::has_error() const {
    return std::any_of(findings.begin(), findings.end(), [](const model::Finding& f) {
        return f.severity == model::Severity::error;
    });
}

std::string nccl_bus_id(const model::PciAddress& address) {
    const unsigned long long value = (static_cast<unsigned long long>(address.domain) << 20) |
                                     (static_cast<unsigned long long>(address.bus) << 12) |
                                     (static_cast<unsigned long long>(address.device) << 4) |
                                     address.function;
    return fmt::format("{:x}", value);
}

const model::NcclHostTopology* nccl_dump_for(const model::NcclLog& log, const std::string& host) {
    return dump_for_host(log, host);
}

std::optional<int> nccl_topology_index(const model::Topology& topology,
                                       const NcclRankPlace& place) {
    return index_in(topology, place);
}

std::map<int, NcclRankPlace> places_of_ranks(const model::NcclLog& log) {
    std::map<int, NcclRankPlace> places;
    for (const auto& rank : log.ranks) {
        merge_place(places[rank.rank], NcclRankPlace{rank.host, rank.bus_id, rank.nvml_dev, false});
    }
    // The dump shows "GPU/1b000 (3)": rank 3 is on that GPU of that host.
    for (const auto& [host, dump] : log.topology) {
        for (const auto& [bus, rank] : dump.gpus) {
            if (rank) {
                merge_place(places[*rank], NcclRankPlace{host, bus, std::nullopt, false});
            }
        }
    }
    return places;
}

NcclAnalysis analyze_nccl_log(const model::NcclLog& log, const model::Topology* topology) {
    NcclAnalysis analysis;
    analysis.pairs = collect_pairs(log, analysis.transport_counts);
    const auto places = places_of_ranks(log);
    for (auto& pair : analysis.pairs) {
        place_pair(pair, places, log, topology);
        analysis.hosts.insert(pair.hosts.begin(), pair.hosts.end());
    }
    for (const auto& rank : log.ranks) {
        if (!rank.host.empty()) {
            analysis.hosts.insert(rank.host);
        }
    }
    analysis.diagnostics = diagnostic_edges(log);
    analysis.findings = nccl_findings(log, analysis, places, topology);
    return analysis;
}

}  // namespace peergate::policy::nccl
