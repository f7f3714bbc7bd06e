// SPDX-License-Identifier: Apache-2.0
// Readers of one NCCL INFO record body (the text after "NCCL INFO "). Each returns
// nullopt for a body of another shape; views point into the body, nothing is copied.
#pragma once

#include "model/nccl_log.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace peergate::sources::nccl {

// "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read", "Channel 01 : 2[c7000] -> 0[87000]
// [receive] via NET/IB/5/GDRDMA", "Ring 00 : 43 -> 44 [receive] via NET/Socket/0",
// "CollNet 00/0 : 0 [receive] via COLLNET/SHARP/1/GDRDMA", "... via direct shared memory".
struct ConnectionLine {
    int channel = 0;
    std::optional<int> conn_index;
    int src_rank = 0;
    std::optional<int> dst_rank;
    std::string_view src_bracket;  // "0" or "1b000"; empty when the rank had no brackets
    std::string_view dst_bracket;
    model::NcclDirection direction = model::NcclDirection::none;
    model::NcclTransport transport = model::NcclTransport::p2p;
    std::string_view detail;
    // A space stands right before "via": then looks_like_connection(body) holds too.
    bool space_before_via = false;
};

// True when the body starts like a connection line and contains " via": if
// parse_connection then fails, the line is malformed (counted as skipped).
bool looks_like_connection(std::string_view body);
std::optional<ConnectionLine> parse_connection(std::string_view body);

// "comm 0x... rank R nranks N cudaDev D [nvmlDev M] busId B [commId 0x...] - Init COMPLETE"
// (also "ncclCommInitRank comm ..." and "- Init START").
struct RankLine {
    int rank = 0;
    std::optional<int> nranks;
    std::optional<int> cuda_dev;
    std::optional<int> nvml_dev;
    std::string_view bus_id;
    std::string_view comm_id;
    std::string_view comm;  // the communicator pointer "0x..."
    bool complete = false;  // false: Init START
};

std::optional<RankLine> parse_rank(std::string_view body);

// "NCCL_P2P_LEVEL set by environment to NVL" (also "NCCL_IB_HCA set to mlx5_0").
struct SettingLine {
    std::string_view name;
    std::string_view value;
};

std::optional<SettingLine> parse_setting(std::string_view body);

// "Pattern 4, crossNic 0, nChannels 12, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1"
// (older: "speed 1.2/1.2").
struct GraphLine {
    int pattern = 0;
    int n_channels = 0;
    std::string_view intra_type;
    std::string_view inter_type;
};

std::optional<GraphLine> parse_graph(std::string_view body);

// "Channel 00/02 :    0   1   2   3": the ring order of one channel.
struct RingLine {
    int channel = 0;
    std::vector<int> order;
};

std::optional<RingLine> parse_ring(std::string_view body);
// The same into `out`, whose order keeps its capacity between lines: no allocation per
// ring line. False (out unspecified) when the body is not a ring order.
bool parse_ring_into(std::string_view body, RingLine& out);

// "Trees [0] 1/4/-1->0->-1 [1] -1/-1/-1->0->1": per channel, children -> rank -> parent.
struct TreeEntry {
    int channel = 0;
    int rank = 0;
    int parent = -1;
    std::vector<int> children;
};

std::optional<std::vector<TreeEntry>> parse_trees(std::string_view body);

// "NCCL version 2.18.3+cuda12.2" anywhere in a line: the version text.
std::optional<std::string_view> parse_version(std::string_view text);

// Bracket contents: a CUDA device ("0".."999") or a bus id ("1b000", "7000").
std::optional<int> bracket_device(std::string_view bracket);

}  // namespace peergate::sources::nccl
