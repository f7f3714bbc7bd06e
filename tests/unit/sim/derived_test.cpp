// SPDX-License-Identifier: Apache-2.0
// What the simulated parts derive from a machine file when it does not spell an answer out.
#include "snapshot/derived.hpp"

#include <gtest/gtest.h>

#include <set>

namespace peergate::sim {
namespace {

snapshot::MachineFile machine_with(const std::vector<std::vector<std::string>>& tokens,
                                   bool nvswitch = false) {
    snapshot::MachineFile m;
    m.nvswitch = nvswitch;
    for (std::size_t p = 0; p < tokens.size(); ++p) {
        m.gpus.push_back(snapshot::MachineGpu{
            .index = static_cast<int>(p),
            .name = "NVIDIA H100 80GB HBM3",
            .pci = model::PciAddress{.bus = static_cast<std::uint8_t>(0x10 + p)},
            .uuid = "GPU-" + std::to_string(p)});
        std::vector<model::LinkLabel> row;
        for (const auto& token : tokens[p]) {
            row.push_back(*model::LinkLabel::parse(token));
        }
        m.matrix.push_back(row);
    }
    return m;
}

TEST(DerivedP2pStatus, NvlinkIsOkOnlyOnNvPairsReadWriteEverywhere) {
    const auto m = machine_with({{"X", "NV12", "SYS"}, {"NV12", "X", "SYS"}, {"SYS", "SYS", "X"}});
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::nvlink, 0, 1), "OK");
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::nvlink, 0, 2), "NS");
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::atomics, 2, 1), "NS");
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::read, 0, 2), "OK");
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::write, 2, 0), "OK");
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::prop, 2, 0), "OK");
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::read, 1, 1), "X");
}

TEST(DerivedP2pStatus, ExplicitRowsWin) {
    auto m = machine_with({{"X", "NV12"}, {"NV12", "X"}});
    m.nvml_p2p_nvlink = {{"X", "U"}, {"OK", "X"}};
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::nvlink, 0, 1), "U");
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::nvlink, 1, 0), "OK");
    EXPECT_EQ(snapshot::p2p_status_code("U"), 6);
    EXPECT_EQ(snapshot::p2p_status_code("CNS"), 1);
    EXPECT_EQ(snapshot::p2p_status_code("DR"), 4);
    EXPECT_EQ(snapshot::p2p_status_matrix(m, snapshot::P2pCaps::nvlink), m.nvml_p2p_nvlink);
}

TEST(DerivedP2pStatus, CapsLetters) {
    snapshot::P2pCaps caps{};
    ASSERT_TRUE(snapshot::p2p_caps_from_letter('n', caps));
    EXPECT_EQ(caps, snapshot::P2pCaps::nvlink);
    ASSERT_TRUE(snapshot::p2p_caps_from_letter('p', caps));
    EXPECT_EQ(static_cast<int>(caps), 4);
    EXPECT_FALSE(snapshot::p2p_caps_from_letter('x', caps));
}

TEST(DerivedNvlinks, DirectLinksPointAtThePeerOncePerBondedLink) {
    const auto m = machine_with({{"X", "NV2", "NV1"}, {"NV2", "X", "SYS"}, {"NV1", "SYS", "X"}});
    const auto links = snapshot::gpu_nvlinks(m, 0);
    ASSERT_EQ(links.size(), 3U);
    EXPECT_EQ(links[0].remote_pci, m.gpus[1].pci);
    EXPECT_EQ(links[1].remote_pci, m.gpus[1].pci);
    EXPECT_EQ(links[2].remote_pci, m.gpus[2].pci);
    EXPECT_EQ(links[2].link, 2);
    EXPECT_EQ(links[2].remote_type, "gpu");
    EXPECT_EQ(snapshot::gpu_nvlinks(m, 1).size(), 2U);
}

TEST(DerivedNvlinks, NvswitchLinksGoToSwitchAddresses) {
    const auto m = machine_with({{"X", "NV18"}, {"NV18", "X"}}, true);
    const auto links = snapshot::gpu_nvlinks(m, 1);
    ASSERT_EQ(links.size(), 18U);
    const auto switches = snapshot::nvswitch_addresses(m);
    EXPECT_EQ(switches.size(), 4U);
    std::set<model::PciAddress> seen;
    for (const auto& link : links) {
        EXPECT_EQ(link.remote_type, "switch");
        ASSERT_TRUE(link.remote_pci.has_value());
        seen.insert(*link.remote_pci);
    }
    EXPECT_EQ(seen, std::set<model::PciAddress>(switches.begin(), switches.end()));
}

TEST(DerivedNvlinks, ExplicitLinksWinAndPcieBoxesHaveNone) {
    auto m = machine_with({{"X", "NODE"}, {"NODE", "X"}});
    EXPECT_TRUE(snapshot::gpu_nvlinks(m, 0).empty());
    EXPECT_TRUE(snapshot::nvswitch_addresses(m).empty());
    m.gpus[0].nvlinks = {snapshot::MachineNvlink{.link = 3, .active = false}};
    ASSERT_EQ(snapshot::gpu_nvlinks(m, 0).size(), 1U);
    EXPECT_FALSE(snapshot::gpu_nvlinks(m, 0)[0].active);
}

TEST(DerivedCuda, CanAccessPeerDefaultsToTheDriversClaim) {
    auto m = machine_with({{"X", "NODE"}, {"NODE", "X"}});
    EXPECT_EQ(snapshot::cuda_can_access_peer(m, 0, 1), 1);
    EXPECT_EQ(snapshot::cuda_can_access_peer(m, 0, 0), 0);
    m.cuda_can_access_peer = {{0, 0}, {0, 0}};
    EXPECT_EQ(snapshot::cuda_can_access_peer(m, 0, 1), 0);
}

TEST(DerivedTopology, CarriesGpusAndMatrixAsSimulated) {
    const auto m = machine_with({{"X", "PIX"}, {"PIX", "X"}});
    const auto t = snapshot::machine_topology(m);
    EXPECT_EQ(t.source, model::TopologySource::simulated);
    EXPECT_EQ(t.matrix, m.matrix);
    EXPECT_EQ(t.gpus[1].pci, m.gpus[1].pci);
    EXPECT_EQ(t.gpus[1].uuid, "GPU-1");
}

}  // namespace
}  // namespace peergate::sim
