// SPDX-License-Identifier: Apache-2.0
// What an NCCL log means: connections per rank pair, transport totals, and the findings
// (NVLink present but unused, P2P limited by the environment, a graph worse than the
// topology allows, ranks that never finished init). Pure: values in, values out.
#pragma once

#include "model/finding.hpp"
#include "model/nccl_log.hpp"
#include "model/topology.hpp"
#include "policy/nccl/diagnostics.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace peergate::policy::nccl {

inline constexpr std::size_t kNcclTransportCount = 5;

// Connection lines per transport, indexed by model::NcclTransport.
using NcclTransportCounts = std::array<std::uint64_t, kNcclTransportCount>;

// Where a rank ran, as far as the log tells (every field may be unknown).
struct NcclRankPlace {
    std::string host;
    std::string bus_id;           // NCCL's form
    std::optional<int> nvml_dev;  // = nvidia-smi index
    bool ambiguous = false;       // the rank number meant different GPUs in different comms
};

// All connection lines between one ordered pair of ranks (CollNet: dst_rank absent).
struct NcclPair {
    int src_rank = 0;
    std::optional<int> dst_rank;
    std::set<std::string> hosts;  // hosts that printed lines for this pair
    NcclTransportCounts lines{};  // connection lines, repeats included
    std::set<int> channels;
    std::set<std::string> details;  // "P2P/IPC/read", "NET/IB/0/GDRDMA"
    std::optional<bool> same_host;  // unknown when a rank's host is not in the log
    std::optional<bool> nvlinked;   // unknown without a topology for that host
    std::string link_evidence;      // why nvlinked is what it is

    std::uint64_t total() const;
};

struct NcclAnalysis {
    NcclTransportCounts transport_counts{};
    std::vector<NcclPair> pairs;            // by src, then dst
    std::vector<NcclDiagEdge> diagnostics;  // NCCL's P2P diagnostics per edge, by src, dst
    std::vector<model::Finding> findings;   // errors first
    std::set<std::string> hosts;

    bool has_error() const;
};

// `topology` is the machine's topology given with --topology (applied to every host);
// nullptr when none was given: the log's own topology dump is used where it has one.
NcclAnalysis analyze_nccl_log(const model::NcclLog& log, const model::Topology* topology);

// Where each rank number ran, from the rank lines and the topology dumps.
std::map<int, NcclRankPlace> places_of_ranks(const model::NcclLog& log);

// NCCL's own topology dump for `host`, or the only dump when it carried no host; nullptr if none.
const model::NcclHostTopology* nccl_dump_for(const model::NcclLog& log, const std::string& host);

// The nvidia-smi index of a rank's GPU in `topology`: its NVML device, else its bus id.
std::optional<int> nccl_topology_index(const model::Topology& topology, const NcclRankPlace& place);

// NCCL's bus id form of a PCI address ("00000000:1B:00.0" -> "1b000").
std::string nccl_bus_id(const model::PciAddress& address);

}  // namespace peergate::policy::nccl
