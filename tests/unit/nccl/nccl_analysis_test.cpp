// SPDX-License-Identifier: Apache-2.0
#include "nccl_log_support.hpp"
#include "policy/nccl/analysis.hpp"
#include "policy/nccl/findings.hpp"
#include "sources/documents/topology_file.hpp"
#include "sources/nccl/nccl_log_parser.hpp"
#include "sources/smi/topo_m_parser.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace peergate::policy::nccl {
namespace {

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(PEERGATE_TEST_FIXTURES) + "/nccl/" + name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::multiset<model::FindingCode> codes(const NcclAnalysis& analysis) {
    std::multiset<model::FindingCode> out;
    for (const auto& finding : analysis.findings) {
        out.insert(finding.code);
    }
    return out;
}

model::Topology topo_m(const std::string& name) {
    auto topology = sources::smi::parse_topo_m(fixture(name));
    EXPECT_TRUE(topology.has_value()) << name;
    return *topology;
}

const std::string kTwoRanks =
    "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x9 - "
    "Init COMPLETE\n"
    "h:2:2 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 1c000 commId 0x9 - "
    "Init COMPLETE\n";

struct RuleCase {
    const char* name;
    std::string log;
    const char* topology;  // topo -m fixture or nullptr
    std::multiset<model::FindingCode> expected;
};

TEST(NcclAnalysis, FindingRules) {
    // clang-format off
    const RuleCase cases[] = {
        {"p2p only: nothing to say", kTwoRanks + "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
         "topo-m-4x-nv12.txt", {}},
        {"shm over nvlink (topo -m)", kTwoRanks + "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n",
         "topo-m-4x-nv12.txt", {kNcclNvlinkUnused}},
        {"shm over pcie (topo -m): expected", kTwoRanks + "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n",
         "topo-m-4x-pcie.txt", {}},
        {"shm without any topology", kTwoRanks + "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n",
         nullptr, {kNcclTransportUnverified}},
        {"net between two hosts is fine",
         "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x9 - Init COMPLETE\n"
         "b:2:2 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x9 - Init COMPLETE\n"
         "a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n",
         "topo-m-4x-nv12.txt", {}},
        {"net receive without gdrdma: staged through host memory",
         "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x9 - Init COMPLETE\n"
         "b:2:2 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x9 - Init COMPLETE\n"
         "b:2:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/3\n",
         nullptr, {kNcclNetWithoutGdr}},
        {"net send without gdrdma is gdr read off: no finding",
         "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x9 - Init COMPLETE\n"
         "a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/3\n"
         "b:2:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/3/GDRDMA\n",
         nullptr, {}},
        {"net over sockets never uses gdr: no finding",
         "b:2:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0\n",
         nullptr, {}},
        {"net inside one nvlinked host",
         kTwoRanks + "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n", "topo-m-4x-nv12.txt",
         {kNcclNvlinkUnused}},
        {"init never completed",
         "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x9 - Init START\n"
         "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
         nullptr, {kNcclInitIncomplete}},
        {"p2p disabled and level set",
         "h:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
         "h:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to PHB\n"
         "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
         nullptr, {kNcclP2pDisabled, kNcclP2pLevel}},
        {"p2p disable 0 is no finding",
         "h:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 0\n"
         "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
         nullptr, {}},
        {"setting differs",
         "h:1:1 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0\nh:2:2 [1] NCCL INFO NCCL_IB_HCA set to mlx5_1\n"
         "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
         nullptr, {kNcclSettingDiffers}},
        {"graph worse than an all-nvlink topology",
         kTwoRanks + "h:1:1 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1.0/1.0, type PHB/PHB, sameChannels 1\n"
                     "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
         "topo-m-4x-nv12.txt", {kNcclGraphWorse}},
        {"graph PHB on a PCIe host is what it is",
         kTwoRanks + "h:1:1 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1.0/1.0, type PHB/PHB, sameChannels 1\n"
                     "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
         "topo-m-4x-pcie.txt", {}},
        {"empty input", "", nullptr, {kNcclNoConnections}},
        {"malformed connection line",
         "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\nh:1:1 [0] NCCL INFO Channel 01/0 : x via P2P\n",
         nullptr, {kNcclLinesSkipped}},
    };
    // clang-format on
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const auto log = test::parse_nccl_log(c.log);
        std::optional<model::Topology> topology;
        if (c.topology != nullptr) {
            topology = topo_m(c.topology);
        }
        const auto analysis = analyze_nccl_log(log, topology ? &*topology : nullptr);
        EXPECT_EQ(codes(analysis), c.expected);
    }
}

const model::Finding* net_without_gdr(const NcclAnalysis& analysis) {
    const auto finding = std::find_if(
        analysis.findings.begin(), analysis.findings.end(), [](const model::Finding& f) {
            return f.code == kNcclNetWithoutGdr;
        });
    return finding == analysis.findings.end() ? nullptr : &*finding;
}

TEST(NcclAnalysis, NetWithoutGdrNamesTheRanksTransportsAndLines) {
    const auto analysis =
        analyze_nccl_log(test::parse_nccl_log(fixture("nccl-2.2x-nvls-ibext-cumem.log")), nullptr);
    const auto* finding = net_without_gdr(analysis);
    ASSERT_NE(finding, nullptr);
    EXPECT_EQ(finding->severity, model::Severity::warning);
    EXPECT_NE(finding->message.find("3 network receive lines over NET/IBext_v8 lack /GDRDMA "
                                    "(ranks 38, 39)"),
              std::string::npos)
        << finding->message;
    EXPECT_NE(finding->remedy.find("nvidia-peermem"), std::string::npos);
}

// NCCL's own reason, quoted: "(no module)" calls for the peer-memory remedy, a path distance
// for NCCL_NET_GDR_LEVEL's.
TEST(NcclAnalysis, NetWithoutGdrQuotesWhyNcclDisabledIt) {
    const auto analysis =
        analyze_nccl_log(test::parse_nccl_log(fixture("nccl-2.1x-gdr-no-module-899.log")), nullptr);
    const auto* finding = net_without_gdr(analysis);
    ASSERT_NE(finding, nullptr);
    EXPECT_NE(finding->message.find("; NCCL said \"NET/IB : GPU Direct RDMA Disabled for HCA 1 "
                                    "'mlx5_1' (no module)\" on 21346d5cefce (and 2 more)"),
              std::string::npos)
        << finding->message;
    EXPECT_NE(finding->remedy.find("no peer-memory path: load nvidia-peermem"), std::string::npos);
    const auto far = analyze_nccl_log(
        test::parse_nccl_log(
            "h:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)\n"
            "h:1:1 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0\n"),
        nullptr);
    ASSERT_FALSE(far.findings.empty());
    EXPECT_NE(far.findings.front().remedy.find("farther from the GPU than NCCL_NET_GDR_LEVEL"),
              std::string::npos)
        << far.findings.front().remedy;
}

TEST(NcclAnalysis, NvlinkUnusedFromTheLogsOwnTopologyDump) {
    const auto log = test::parse_nccl_log(fixture("handwritten-nvlink-unused.log"));
    const auto analysis = analyze_nccl_log(log, nullptr);
    EXPECT_EQ(codes(analysis),
              (std::multiset<model::FindingCode>{kNcclNvlinkUnused,
                                                 kNcclNvlinkUnused,
                                                 kNcclNvlinkUnused,
                                                 kNcclNvlinkUnused,
                                                 kNcclInitIncomplete,
                                                 kNcclP2pDisabled,
                                                 kNcclGraphWorse}));
    EXPECT_TRUE(analysis.has_error());
    ASSERT_FALSE(analysis.findings.empty());
    EXPECT_EQ(analysis.findings.front().severity, model::Severity::error);
    EXPECT_EQ(analysis.findings.front().gpus, (std::vector<int>{0, 1}));
    EXPECT_NE(analysis.findings.front().message.find("rank 0 -> rank 1"), std::string::npos);
    EXPECT_EQ(analysis.transport_counts[static_cast<std::size_t>(model::NcclTransport::shm)], 6u);
    ASSERT_EQ(analysis.pairs.size(), 4u);
    EXPECT_EQ(analysis.pairs[0].nvlinked, true);
    EXPECT_EQ(analysis.pairs[0].same_host, true);
    const auto incomplete = std::find_if(
        analysis.findings.begin(), analysis.findings.end(), [](const model::Finding& f) {
            return f.code == kNcclInitIncomplete;
        });
    ASSERT_NE(incomplete, analysis.findings.end());
    EXPECT_EQ(incomplete->gpus, (std::vector<int>{3}));
}

TEST(NcclAnalysis, RanksPlacedByTheDumpAloneAreJudged) {
    const auto log = test::parse_nccl_log(
        fixture("nccl-2.2x-topology-nvl-mesh.log") +
        "testpc115159:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1000 "
        "commId 0xd - Init COMPLETE\n"
        "testpc115159:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n");
    const auto analysis = analyze_nccl_log(log, nullptr);
    ASSERT_EQ(analysis.pairs.size(), 1u);
    EXPECT_EQ(analysis.pairs[0].nvlinked, true);  // GPU/1000 (rank 0) - NVL - GPU/41000 (rank 1)
    EXPECT_EQ(codes(analysis).count(kNcclNvlinkUnused), 1u);
}

TEST(NcclAnalysis, RealTopoMFixturesFromTheSharedSet) {
    auto read = [](const std::string& name) {
        std::ifstream in(std::string(PEERGATE_TEST_FIXTURES) + "/topo_m/" + name, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        auto topology = sources::smi::parse_topo_m(text.str());
        EXPECT_TRUE(topology.has_value()) << name;
        return *topology;
    };
    const auto log = test::parse_nccl_log(
        kTwoRanks + "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n");
    const auto nvlink = read("unsloth_TOPO_NVLINK_8X.txt");
    EXPECT_EQ(codes(analyze_nccl_log(log, &nvlink)),
              (std::multiset<model::FindingCode>{kNcclNvlinkUnused}));
    const auto pcie = read("unsloth_TOPO_PCIE_2X.txt");
    EXPECT_EQ(codes(analyze_nccl_log(log, &pcie)), (std::multiset<model::FindingCode>{}));
}

TEST(NcclAnalysis, BusIdOfPciAddress) {
    EXPECT_EQ(nccl_bus_id(*model::PciAddress::parse("00000000:1B:00.0")), "1b000");
    EXPECT_EQ(nccl_bus_id(*model::PciAddress::parse("0000:a0:1c.0")), "a01c0");
    EXPECT_EQ(nccl_bus_id(*model::PciAddress::parse("0001:19:00.0")), "119000");
}

TEST(NcclTopologyJson, ReadsTopoJsonAndRejectsOthers) {
    auto topology = sources::documents::parse_topology_document(
        R"({"schema": "peergate.topology/v1", "readable": true, "source": "nvml",
            "gpus": [{"index": 0, "pci_bus_id": "00000000:1B:00.0"}, {"index": 1, "pci_bus_id": "00000000:1C:00.0"}],
            "matrix": [["X", "NV18"], ["NV18", "X"]], "nvlink_islands": [[0, 1]]})");
    ASSERT_TRUE(topology.has_value()) << topology.error().message;
    EXPECT_EQ(topology->size(), 2u);
    EXPECT_TRUE(topology->label(0, 1)->is_nvlink());
    // A rank known only by bus id maps through pci_bus_id.
    const auto log = test::parse_nccl_log(
        "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE\n"
        "h:2:2 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 1c000 - Init COMPLETE\n"
        "h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n");
    const auto analysis = analyze_nccl_log(log, &*topology);
    EXPECT_EQ(codes(analysis), (std::multiset<model::FindingCode>{kNcclNvlinkUnused}));

    EXPECT_FALSE(sources::documents::parse_topology_document("{}"));
    EXPECT_FALSE(sources::documents::parse_topology_document("not json"));
    EXPECT_FALSE(sources::documents::parse_topology_document(
        R"({"schema": "peergate.topology/v1", "gpus": [{"index": 0}],
                                              "matrix": [["X", "NV1"]]})"));
    EXPECT_FALSE(sources::documents::parse_topology_document(
        R"({"schema": "peergate.topology/v1", "gpus": [{"index": 0}, {"index": 1}],
                                              "matrix": [["X", "BOGUS"], ["BOGUS", "X"]]})"));
}

}  // namespace
}  // namespace peergate::policy::nccl
