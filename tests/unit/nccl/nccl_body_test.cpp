// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_connection_body.hpp"
#include "sources/nccl/nccl_record_bodies.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace peergate::sources::nccl {
namespace {

using model::NcclDirection;
using model::NcclTransport;

struct ConnectionCase {
    const char* body;
    int channel;
    std::optional<int> conn_index;
    int src;
    std::optional<int> dst;
    const char* src_bracket;
    const char* dst_bracket;
    NcclDirection direction;
    NcclTransport transport;
    const char* detail;
};

TEST(NcclConnection, ReadsEveryShape) {
    constexpr auto none = NcclDirection::none;
    constexpr auto send = NcclDirection::send;
    constexpr auto recv = NcclDirection::receive;
    // clang-format off
    const ConnectionCase cases[] = {
        {"Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read", 0, 0, 0, 1, "0", "1", none, NcclTransport::p2p, "IPC/read"},
        {"Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM", 1, 0, 0, 1, "0", "1", none, NcclTransport::p2p, "CUMEM"},
        {"Channel 02/1 : 0[0] -> 1[1] via P2P/CUMEM/read", 2, 1, 0, 1, "0", "1", none, NcclTransport::p2p, "CUMEM/read"},
        {"Channel 03/0 : 0[0] -> 1[1] via P2P/direct pointer", 3, 0, 0, 1, "0", "1", none, NcclTransport::p2p,
         "direct pointer"},
        {"Channel 04/0 : 7[7] -> 6[6] via P2P/direct pointer/read", 4, 0, 7, 6, "7", "6", none, NcclTransport::p2p,
         "direct pointer/read"},
        {"Channel 05/0 : 0[0] -> 1[1] via P2P/indirect/2[2]", 5, 0, 0, 1, "0", "1", none, NcclTransport::p2p,
         "indirect/2[2]"},
        {"Channel 09 : 6[6] -> 7[7] via SHM/direct/direct", 9, std::nullopt, 6, 7, "6", "7", none, NcclTransport::shm,
         "direct/direct"},
        {"Channel 00 : 1[89000] -> 0[3d000] via direct shared memory", 0, std::nullopt, 1, 0, "89000", "3d000", none,
         NcclTransport::shm, "direct shared memory"},
        {"Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA", 0, 0, 0, 8, "0", "0", send, NcclTransport::net,
         "IB/0/GDRDMA"},
        {"Channel 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0/GDRDMA", 0, 0, 0, 8, "0", "0", recv, NcclTransport::net,
         "IB/0/GDRDMA"},
        {"Channel 14/0 : 15[7] -> 0[0] [send] via NET/Socket/0", 14, 0, 15, 0, "7", "0", send, NcclTransport::net,
         "Socket/0"},
        {"Channel 02/0 : 0[0] -> 8[0] [send] via NET/IB/0(1)/GDRDMA", 2, 0, 0, 8, "0", "0", send, NcclTransport::net,
         "IB/0(1)/GDRDMA"},
        {"Channel 03/0 : 47[7] -> 39[7] [receive] via NET/IBext_v8/2", 3, 0, 47, 39, "7", "7", recv,
         NcclTransport::net, "IBext_v8/2"},
        {"CollNet 00/0 : 0 [receive] via COLLNET/SHARP/1/GDRDMA", 0, 0, 0, std::nullopt, "", "", recv,
         NcclTransport::collnet, "SHARP/1/GDRDMA"},
        {"Coll 01 : 3 [send] via COLLNET/SHARP/0", 1, std::nullopt, 3, std::nullopt, "", "", send,
         NcclTransport::collnet, "SHARP/0"},
        {"CollNet 05/0 : 5 [send] via COLLNET/SHARP/5/GDRDMA(PCI)", 5, 0, 5, std::nullopt, "", "", send,
         NcclTransport::collnet, "SHARP/5/GDRDMA(PCI)"},
        {"Channel 08/0 : 0[0] -> 1[1] via NVLS", 8, 0, 0, 1, "0", "1", none, NcclTransport::nvls, ""},
        {"Channel 08/0 : 0[0] -> 1[1] via NVLS/UC", 8, 0, 0, 1, "0", "1", none, NcclTransport::nvls, "UC"},
        {"Ring 00 : 12[41000] -> 11[2d000] via P2P/IPC", 0, std::nullopt, 12, 11, "41000", "2d000", none,
         NcclTransport::p2p, "IPC"},
        {"Ring 00 : 1[23000] -> 8[1e000] [send] via NET/IB/1/GDRDMA", 0, std::nullopt, 1, 8, "23000", "1e000", send,
         NcclTransport::net, "IB/1/GDRDMA"},
        {"Ring 00 : 43 -> 44 [receive] via NET/Socket/0", 0, std::nullopt, 43, 44, "", "", recv, NcclTransport::net,
         "Socket/0"},
        {"Ring 00 : 26[2] -> 24[0] via direct pointer", 0, std::nullopt, 26, 24, "2", "0", none, NcclTransport::p2p,
         "direct pointer"},
        {"Channel 00/0 : 0[0] -> 1[1] via P2P/IPC comm 0xaa09f20 nRanks 08", 0, 0, 0, 1, "0", "1", none,
         NcclTransport::p2p, "IPC"},
    };
    // clang-format on
    for (const auto& c : cases) {
        SCOPED_TRACE(c.body);
        EXPECT_TRUE(looks_like_connection(c.body));
        const auto line = parse_connection(c.body);
        ASSERT_TRUE(line.has_value());
        EXPECT_EQ(line->channel, c.channel);
        EXPECT_EQ(line->conn_index, c.conn_index);
        EXPECT_EQ(line->src_rank, c.src);
        EXPECT_EQ(line->dst_rank, c.dst);
        EXPECT_EQ(line->src_bracket, c.src_bracket);
        EXPECT_EQ(line->dst_bracket, c.dst_bracket);
        EXPECT_EQ(line->direction, c.direction);
        EXPECT_EQ(line->transport, c.transport);
        EXPECT_EQ(line->detail, c.detail);
    }
}

TEST(NcclConnection, RejectsMalformedAndTruncatedLines) {
    for (const char* body : {"Channel 01/0 : 0[0] -> 1[1] via",
                             "Channel 02/0 : 0[0] -> via P2P/IPC",
                             "Channel xx/0 : 0[0] -> 1[1] via P2P/IPC",
                             "Channel 03/0 : 0[0 -> 1[1] via P2P/IPC",
                             "Channel 04/0 : 0[0] -> 1[1] via TELEPORT/0",
                             "Channel 05/0 : 99999999999[0] -> 1[1] via P2P/IPC",
                             "Channel 06/0 : 0[0] -> 1[1] [sideways] via P2P/IPC",
                             "CollNet 00/0 : 0 [send] via P2P/IPC",
                             "Channel 07/0 : 0[] -> 1[1] via P2P/IPC",
                             "Channel 08/ : 0[0] -> 1[1] via P2P/IPC",
                             "Channel 09/0 0[0] -> 1[1] via P2P/IPC",
                             "Channel 10/0 : 0[0] -> 1[1] via P2P/"}) {
        EXPECT_FALSE(parse_connection(body).has_value()) << body;
    }
    EXPECT_FALSE(looks_like_connection("Channel 00/02 :    0   1   2   3"));
    EXPECT_FALSE(looks_like_connection("Connected all rings"));
}

TEST(NcclConnection, BracketIsDeviceOrBusId) {
    EXPECT_EQ(bracket_device("0"), 0);
    EXPECT_EQ(bracket_device("15"), 15);
    EXPECT_EQ(bracket_device("7000"), std::nullopt);
    EXPECT_EQ(bracket_device("1b000"), std::nullopt);
    EXPECT_EQ(bracket_device(""), std::nullopt);
}

TEST(NcclRankLine, ReadsNewAndOldForms) {
    auto line = parse_rank(
        "comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 nvmlDev 4 busId 9b000 "
        "commId 0x5ae77eb5ea4ec1ee - Init COMPLETE");
    ASSERT_TRUE(line);
    EXPECT_EQ(line->rank, 36);
    EXPECT_EQ(line->nranks, 64);
    EXPECT_EQ(line->cuda_dev, 4);
    EXPECT_EQ(line->nvml_dev, 4);
    EXPECT_EQ(line->bus_id, "9b000");
    EXPECT_EQ(line->comm_id, "0x5ae77eb5ea4ec1ee");
    EXPECT_TRUE(line->complete);

    line =
        parse_rank("comm 0x7fdf08000d00 rank 15 nranks 16 cudaDev 7 busId e7000 - Init COMPLETE");
    ASSERT_TRUE(line);
    EXPECT_EQ(line->rank, 15);
    EXPECT_EQ(line->nvml_dev, std::nullopt);
    EXPECT_EQ(line->comm_id, "");

    line = parse_rank(
        "ncclCommInitRank comm 0x5468150 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 7000 "
        "commId 0x70fba02a8d314739 - Init START");
    ASSERT_TRUE(line);
    EXPECT_FALSE(line->complete);
    EXPECT_EQ(line->bus_id, "7000");

    EXPECT_FALSE(
        parse_rank("comm 0x60005e0 rank 1 nRanks 8 nNodes 4 localRanks 2 localRank 1 MNNVL 0"));
    EXPECT_FALSE(parse_rank("comm 0x1000 rank nranks 4 - Init COMPLETE"));
}

TEST(NcclSetting, ReadsEnvironmentLines) {
    struct Case {
        const char* body;
        const char* name;
        const char* value;
    };

    // clang-format off
    const Case cases[] = {
        {"NCCL_P2P_LEVEL set by environment to NVL", "NCCL_P2P_LEVEL", "NVL"},
        {"NCCL_P2P_DISABLE set by environment to 1.", "NCCL_P2P_DISABLE", "1"},
        {"NCCL_IB_GID_INDEX set by environment to 3.", "NCCL_IB_GID_INDEX", "3"},
        {"NCCL_SOCKET_IFNAME set by environment to enp179s0f0", "NCCL_SOCKET_IFNAME", "enp179s0f0"},
        {"NCCL_IB_HCA set to mlx5_0", "NCCL_IB_HCA", "mlx5_0"},
    };
    // clang-format on
    for (const auto& c : cases) {
        auto setting = parse_setting(c.body);
        ASSERT_TRUE(setting) << c.body;
        EXPECT_EQ(setting->name, c.name);
        EXPECT_EQ(setting->value, c.value);
    }
    EXPECT_FALSE(parse_setting("P2P Chunksize set to 131072"));
    EXPECT_FALSE(parse_setting("NCCL_P2P_LEVEL"));
    EXPECT_FALSE(parse_setting("NCCL version 2.18.3+cuda12.2"));
}

TEST(NcclGraph, ReadsPatternLines) {
    auto graph = parse_graph(
        "Pattern 4, crossNic 0, nChannels 12, bw 40.000000/40.000000, type NVL/PIX, sameChannels "
        "1");
    ASSERT_TRUE(graph);
    EXPECT_EQ(graph->pattern, 4);
    EXPECT_EQ(graph->n_channels, 12);
    EXPECT_EQ(graph->intra_type, "NVL");
    EXPECT_EQ(graph->inter_type, "PIX");
    graph = parse_graph(
        "Pattern 4, crossNic 0, nChannels 4, speed 1.200000/1.200000, type SYS/SYS, sameChannels "
        "0");
    ASSERT_TRUE(graph);
    EXPECT_EQ(graph->intra_type, "SYS");
    EXPECT_FALSE(parse_graph("Pattern 4, crossNic 0, nChannels x, type"));
    EXPECT_FALSE(parse_graph("Pattern"));
}

TEST(NcclRing, ReadsRingOrders) {
    auto ring = parse_ring("Channel 00/02 :    0   1   2   3");
    ASSERT_TRUE(ring);
    EXPECT_EQ(ring->channel, 0);
    EXPECT_EQ(ring->order, (std::vector<int>{0, 1, 2, 3}));
    ring = parse_ring("Channel 23/24 :    0   1   2   3   4   5   6   7");
    ASSERT_TRUE(ring);
    EXPECT_EQ(ring->channel, 23);
    EXPECT_EQ(ring->order.size(), 8u);
    EXPECT_FALSE(parse_ring("Channel 00/02 :"));
    EXPECT_FALSE(parse_ring("Channel 00/0 : 0[0] -> 1[1] via P2P/IPC"));
}

TEST(NcclTrees, ReadsTreeLines) {
    auto trees = parse_trees("Trees [0] 1/4/-1->0->-1 [1] -1/-1/-1->0->1");
    ASSERT_TRUE(trees);
    ASSERT_EQ(trees->size(), 2u);
    EXPECT_EQ((*trees)[0].channel, 0);
    EXPECT_EQ((*trees)[0].rank, 0);
    EXPECT_EQ((*trees)[0].parent, -1);
    EXPECT_EQ((*trees)[0].children, (std::vector<int>{1, 4}));
    EXPECT_EQ((*trees)[1].parent, 1);
    EXPECT_TRUE((*trees)[1].children.empty());
    trees = parse_trees(
        "Trees [0] 2/-1/-1->3->1 [1] 1/-1/-1->3->2 comm 0xaa09f20 nRanks 08 busId ce000");
    ASSERT_TRUE(trees);
    EXPECT_EQ(trees->size(), 2u);
    EXPECT_FALSE(parse_trees("Trees [0] 1/4/-1->0"));
    EXPECT_FALSE(parse_trees("Trees"));
    EXPECT_FALSE(parse_trees("Trees [x] 1->0->-1"));
}

TEST(NcclVersion, FindsVersionAnywhere) {
    EXPECT_EQ(parse_version("[1,0]<stdout>:NCCL version 2.5.6+cuda10.2"), "2.5.6+cuda10.2");
    EXPECT_EQ(parse_version("NCCL version 2.18.3+cuda12.2"), "2.18.3+cuda12.2");
    EXPECT_FALSE(parse_version("NCCL version"));
    EXPECT_FALSE(parse_version("NCCL version x"));
}

}  // namespace
}  // namespace peergate::sources::nccl
