// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_topo_dump.hpp"

#include "nccl_log_support.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

#include <gtest/gtest.h>

namespace peergate::sources::nccl {
namespace {

TEST(NcclBusId, NormalisesEveryForm) {
    EXPECT_EQ(normalize_bus_id("1B000"), "1b000");
    EXPECT_EQ(normalize_bus_id("0-19000"), "19000");
    EXPECT_EQ(normalize_bus_id("1-19000"), "119000");
    EXPECT_EQ(normalize_bus_id("0001b000"), "1b000");
    EXPECT_EQ(normalize_bus_id("zz"), "");
    EXPECT_EQ(normalize_bus_id(""), "");
}

TEST(NcclTopologyDump, NvlinkMeshBetweenGpus) {
    const auto log = test::parse_nccl_log(
        "h:1:2 [3] NCCL INFO === System : maxBw 80.0 totalBw 240.0 ===\n"
        "h:1:2 [3] NCCL INFO CPU/1 (1/2/-1)\n"
        "h:1:2 [3] NCCL INFO + PCI[24.0] - GPU/1000 (0)\n"
        "h:1:2 [3] NCCL INFO               + NVL[80.0] - GPU/41000\n"
        "h:1:2 [3] NCCL INFO               + NVL[80.0] - GPU/C1000\n"
        "h:1:2 [3] NCCL INFO + SYS[16.0] - CPU/0\n"
        "h:1:2 [3] NCCL INFO CPU/0 (1/2/-1)\n"
        "h:1:2 [3] NCCL INFO + PCI[24.0] - GPU/41000 (1)\n"
        "h:1:2 [3] NCCL INFO               + NVL[80.0] - GPU/C1000\n"
        "h:1:2 [3] NCCL INFO Connected all rings\n"
        "h:1:2 [3] NCCL INFO + NVL[80.0] - GPU/99000\n");
    ASSERT_EQ(log.topology.count("h"), 1u);
    const auto& host = log.topology.at("h");
    EXPECT_EQ(host.gpus.size(), 3u);
    EXPECT_EQ(host.gpus.at("1000"), 0);
    EXPECT_EQ(host.gpus.at("41000"), 1);
    EXPECT_EQ(host.gpus.at("c1000"), std::nullopt);
    EXPECT_TRUE(host.nvlinked("1000", "41000"));
    EXPECT_TRUE(host.nvlinked("c1000", "1000"));
    EXPECT_TRUE(host.nvlinked("41000", "c1000"));
    EXPECT_FALSE(host.nvlinked("1000", "99000"));  // after the dump ended: not read
    EXPECT_EQ(host.nvlinks.size(), 3u);
}

TEST(NcclTopologyDump, NvswitchMembershipAndPlainPaste) {
    // A dump pasted without prefixes (issue reports do this) still reads, for host "".
    const auto log = test::parse_nccl_log(
        "=== System : maxBw 24.0 totalBw 360.0 ===\n"
        "CPU/0 (1/1/2)\n"
        "+ PCI[24.0] - PCI/2000 (10b5879610b58796)\n"
        "        + PCI[24.0] - GPU/4000 (0)\n"
        "               + NVL[360.0] - NVS/0\n"
        "        + PCI[24.0] - GPU/5000 (1)\n"
        "               + NVL[360.0] - NVS/0\n"
        "        + PCI[24.0] - NIC/6000\n"
        "               + NET[25.0] - NET/0 (0/0/25.000000)\n"
        "+ SYS[10.0] - CPU/1\n"
        "CPU/1 (1/1/2)\n"
        "+ PCI[24.0] - PCI/82000 (10b5879610b58796)\n"
        "        + PCI[24.0] - GPU/84000 (4)\n"
        "               + NVL[360.0] - NVS/0\n"
        "        + PCI[24.0] - GPU/85000 (5)\n");
    ASSERT_EQ(log.topology.count(""), 1u);
    const auto& host = log.topology.at("");
    EXPECT_EQ(host.gpus.size(), 4u);
    EXPECT_EQ(host.gpus.at("84000"), 4);
    ASSERT_EQ(host.nvswitches.count("NVS/0"), 1u);
    EXPECT_EQ(host.nvswitches.at("NVS/0").size(), 3u);
    EXPECT_TRUE(host.nvlinked("4000", "84000"));
    EXPECT_FALSE(host.nvlinked("4000", "85000"));  // GPU/85000 shows no NVL edge
}

TEST(NcclTopologyDump, InterleavedThreadsKeepTheirOwnTree) {
    const auto log = test::parse_nccl_log(
        "h:1:1 [0] NCCL INFO === System : maxBw 1 totalBw 1 ===\n"
        "h:2:2 [1] NCCL INFO === System : maxBw 1 totalBw 1 ===\n"
        "h:1:1 [0] NCCL INFO CPU/0 (1/1/2)\n"
        "h:2:2 [1] NCCL INFO CPU/0 (1/1/2)\n"
        "h:1:1 [0] NCCL INFO + PCI[24.0] - GPU/1000 (0)\n"
        "h:2:2 [1] NCCL INFO + PCI[24.0] - GPU/2000 (1)\n"
        "h:1:1 [0] NCCL INFO        + NVL[20.0] - GPU/2000\n"
        "h:2:2 [1] NCCL INFO        + NVL[20.0] - GPU/1000\n");
    const auto& host = log.topology.at("h");
    EXPECT_EQ(host.nvlinks.size(), 1u);
    EXPECT_TRUE(host.nvlinked("1000", "2000"));
}

}  // namespace
}  // namespace peergate::sources::nccl
