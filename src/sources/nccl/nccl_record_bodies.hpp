// SPDX-License-Identifier: Apache-2.0
// Readers of the NCCL INFO record bodies (the text after "NCCL INFO ") other than
// connection lines (nccl_connection_body.hpp): ranks, the version, settings, graphs, ring
// orders and trees. Each returns nullopt for a body of another shape; views point into
// the body, nothing is copied.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace peergate::sources::nccl {

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

}  // namespace peergate::sources::nccl
