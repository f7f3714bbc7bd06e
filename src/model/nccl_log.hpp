// SPDX-License-Identifier: Apache-2.0
// What an NCCL_DEBUG=INFO log says NCCL did: connections per channel, ranks, settings,
// graph searches, ring orders and the topology NCCL detected. Plain values, no I/O;
// the reader lives in sources/nccl, the reasoning in policy/nccl_analysis.
#pragma once

#include "model/nccl_diag.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::model {

// Contract values of peergate.nccl_log/v1 "transport".
enum class NcclTransport { p2p, shm, net, collnet, nvls };

// "P2P", "SHM", "NET", "COLLNET", "NVLS".
std::string_view to_string(NcclTransport transport);

// Which side printed a network connection line; none for P2P and SHM lines.
enum class NcclDirection { none, send, receive };

// "", "send", "receive".
std::string_view to_string(NcclDirection direction);

// One distinct connection line; identical lines repeated in the log add to `count`.
struct NcclConnection {
    std::string host;  // empty when the line carried no host prefix
    int channel = 0;
    std::optional<int> conn_index;  // the "/0" of "Channel 00/0"; absent before NCCL 2.12
    int src_rank = 0;
    std::optional<int> dst_rank;  // absent for CollNet lines, which name one rank
    std::optional<int> src_dev;   // CUDA device in brackets, when it is one
    std::optional<int> dst_dev;
    std::string src_bus_id;  // older logs put the bus id in brackets: "1b000"
    std::string dst_bus_id;
    NcclDirection direction = NcclDirection::none;
    NcclTransport transport = NcclTransport::p2p;
    std::string detail;  // after "<TRANSPORT>/": "IPC/read", "IB/0/GDRDMA"
    std::uint64_t count = 1;

    friend bool operator==(const NcclConnection&, const NcclConnection&) = default;
};

// One rank of one communicator, from its "comm 0x... rank R nranks N ..." lines.
struct NcclRank {
    int rank = 0;
    std::optional<int> nranks;
    std::string host;
    std::optional<int> cuda_dev;
    std::optional<int> nvml_dev;  // absent before NCCL 2.12
    std::string bus_id;           // NCCL's form, e.g. "1b000"; empty when unknown
    std::string comm_id;          // "0x..."; empty before NCCL 2.12
    bool init_started = false;
    bool init_complete = false;

    friend bool operator==(const NcclRank&, const NcclRank&) = default;
};

// "Pattern 4, crossNic 0, nChannels 12, bw 40.0/40.0, type NVL/PIX, sameChannels 1".
struct NcclGraph {
    std::string host;
    int pattern = 0;
    int n_channels = 0;
    std::string intra_type;  // path type inside the node: LOC, NVL, NVB, PIX, ...
    std::string inter_type;  // path type to the network
    std::uint64_t count = 1;

    friend bool operator==(const NcclGraph&, const NcclGraph&) = default;
};

// "Channel 00/02 :    0   1   2   3": the ring order of one channel.
struct NcclRing {
    std::string host;
    int channel = 0;
    std::vector<int> order;

    friend bool operator==(const NcclRing&, const NcclRing&) = default;
};

// "Trees [0] 1/4/-1->0->-1 ...": one rank's place in the tree of one channel.
struct NcclTree {
    std::string host;
    int channel = 0;
    int rank = 0;
    std::optional<int> parent;  // -1 in the log: the root
    std::vector<int> children;  // -1 entries dropped

    friend bool operator==(const NcclTree&, const NcclTree&) = default;
};

// What NCCL's own topology dump ("=== System : maxBw ...") says about one host.
struct NcclHostTopology {
    std::map<std::string, std::optional<int>> gpus;           // bus id -> rank shown, if any
    std::set<std::pair<std::string, std::string>> nvlinks;    // bus-id pairs, a < b
    std::map<std::string, std::set<std::string>> nvswitches;  // "NVS/0" -> GPU bus ids

    // True when the two GPUs share an NVLink or an NVSwitch in the dump.
    bool nvlinked(const std::string& a, const std::string& b) const;

    friend bool operator==(const NcclHostTopology&, const NcclHostTopology&) = default;
};

// A "GPU Direct RDMA ..." line: a network device's capability, as the net plugin states it at
// init ("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)", "NET/IB : GPU
// Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0'"), or NCCL's decision for one GPU and NIC
// from the topology search ("GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)").
struct NcclGdrLine {
    std::string host;
    std::string net;  // "IB", "Socket", "NCCL RDMA Plugin v10"; "" when the line names none
    bool enabled = false;
    std::string via;  // "nvidia-peermem", "DMABUF"; "" when the line names none
    std::string gpu;  // a decision's GPU as printed (a rank, or a bus id in older NCCL); ""
    std::string hca;  // as printed: "0 'mlx5_0'", "0..3", "1"
    std::optional<int> distance;  // a decision's GPU-NIC path type (NCCL's PATH_* number)
    std::string comparison;       // ">", ">=", "<=": how it met the limit
    std::optional<int> limit;     // NCCL_NET_GDR_LEVEL as a path type number
    std::string reason;           // a capability's parenthesis: "no module"
    std::uint64_t count = 1;

    friend bool operator==(const NcclGdrLine&, const NcclGdrLine&) = default;
};

// The line in NCCL's words, less the host prefix ("Enabled"/"Disabled" capitalised as
// the older form has it, a missing closing quote restored).
std::string to_text(const NcclGdrLine& line);

// Records read but not kept because their table was full: the reader keeps a bounded
// number of distinct entries per table (docs/RELIABILITY.md, "nccl-log").
struct NcclDroppedRecords {
    std::uint64_t connections = 0;  // connection lines
    std::uint64_t ranks = 0;        // "comm 0x... rank" lines
    std::uint64_t choices = 0;      // settings, graphs, rings and trees
    std::uint64_t gdr = 0;          // GPU Direct RDMA and DMA-BUF lines
    std::uint64_t topology = 0;     // lines of NCCL's topology dumps
    std::uint64_t diagnostics = 0;  // NCCL DIAG, Diagnostics P2P and RAS lines

    std::uint64_t total() const {
        return connections + ranks + choices + gdr + topology + diagnostics;
    }

    friend bool operator==(const NcclDroppedRecords&, const NcclDroppedRecords&) = default;
};

// Line statistics, so a reader can tell "no connections" from "nothing read".
struct NcclLineCounts {
    std::uint64_t lines = 0;    // physical lines fed
    std::uint64_t records = 0;  // "NCCL INFO" records found in them
    std::uint64_t connection_lines = 0;
    std::uint64_t skipped = 0;  // looked like a known shape but did not parse
    NcclDroppedRecords dropped;

    friend bool operator==(const NcclLineCounts&, const NcclLineCounts&) = default;
};

struct NcclLog {
    std::vector<NcclConnection> connections;                    // in first-seen order
    std::vector<NcclRank> ranks;                                // by comm id, then rank
    std::vector<std::pair<std::string, std::string>> settings;  // NCCL_* as reported, first value
    std::vector<std::pair<std::string, std::vector<std::string>>> conflicting_settings;
    std::vector<NcclGraph> graphs;
    std::vector<NcclRing> rings;
    std::vector<NcclTree> trees;
    std::map<std::string, NcclHostTopology> topology;  // by host ("" when unknown)
    std::vector<NcclGdrLine> gdr;                      // distinct lines, in first-seen order
    // "DMA-BUF is available on GPU device N": the CUDA devices per host ("" when unknown).
    std::map<std::string, std::set<int>> dma_buf_devices;
    std::vector<NcclDiagLine> diagnostics;  // NCCL's P2P diagnostics, distinct, first-seen order
    std::vector<NcclRasLine> ras;           // RAS lines, distinct, in first-seen order
    std::string nccl_version;               // "2.18.3+cuda12.2"; empty if not seen
    NcclLineCounts counts;

    friend bool operator==(const NcclLog&, const NcclLog&) = default;
};

// NCCL path types, closest first: LOC, NVL, NVB, C2C, PIX, PXB, PXN, PHB, SYS, NET.
// nullopt for a name not in that list.
std::optional<int> nccl_path_rank(std::string_view type);

}  // namespace peergate::model
