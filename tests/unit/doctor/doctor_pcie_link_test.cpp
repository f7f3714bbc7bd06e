// SPDX-License-Identifier: Apache-2.0
// PCIe links that trained narrow (policy/doctor/pcie_link.cpp): the links are paired as NCCL
// pairs sysfs's path (the GPU with its port, then every second port), a link GPUs share is
// one link, and only a width below what both ends can do is named: not a slot wired narrow,
// not an idle speed, not a link whose ends sysfs does not describe.
#include "policy/doctor/pcie_link.hpp"
#include "support/pci_builders.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace peergate::policy::doctor {
namespace {

using test::pci;

using model::PciAddress;
using model::Severity;

model::PciAttributes link(int max_width, std::optional<int> width, std::string speed = "") {
    return model::PciAttributes{.max_link_speed = "16.0 GT/s PCIe",
                                .max_link_width = max_width,
                                .current_link_speed = std::move(speed),
                                .current_link_width = width};
}

// GPUs 0 and 1 behind one switch (downstream ports 04:08.0 and 04:10.0, upstream 03:00.0,
// root port 00:01.0); GPU 2 straight on root port 80:01.0. Every link x16, GPUs idle.
struct LinkHost {
    model::Topology topology;
    DoctorInput input;

    LinkHost() {
        const std::vector<std::pair<std::string, std::vector<std::string>>> gpus{
            {"0000:05:00.0", {"0000:04:08.0", "0000:03:00.0", "0000:00:01.0"}},
            {"0000:06:00.0", {"0000:04:10.0", "0000:03:00.0", "0000:00:01.0"}},
            {"0000:81:00.0", {"0000:80:01.0"}}};
        for (std::size_t g = 0; g < gpus.size(); ++g) {
            const int index = static_cast<int>(g);
            topology.gpus.push_back(model::Gpu{.index = index, .pci = pci(gpus[g].first)});
            input.pci[pci(gpus[g].first)] = link(16, 16, "2.5 GT/s PCIe");
            for (const auto& port : gpus[g].second) {
                input.ports[index].push_back(model::PciPort{.address = pci(port)});
                input.pci[pci(port)] = link(16, 16, "16.0 GT/s PCIe");
            }
        }
    }

    std::vector<model::Finding> findings() const {
        return pcie_link_findings(pcie_links(input, topology));
    }
};

TEST(PcieLinks, ArePairedAsNcclPairsThePathAndSharedOnce) {
    const LinkHost host;
    const auto links = pcie_links(host.input, host.topology);
    ASSERT_EQ(links.size(), 4U);  // two GPU links behind the switch, its uplink, GPU 2's link
    const auto uplink = std::find_if(links.begin(), links.end(), [](const PcieLinkState& l) {
        return l.lower == pci("0000:03:00.0");
    });
    ASSERT_NE(uplink, links.end());
    EXPECT_EQ(uplink->upper, pci("0000:00:01.0"));
    EXPECT_EQ(uplink->gpus, (std::vector<int>{0, 1}));
    EXPECT_FALSE(uplink->lower_is_gpu);
    const auto direct = std::find_if(links.begin(), links.end(), [](const PcieLinkState& l) {
        return l.lower == pci("0000:81:00.0");
    });
    ASSERT_NE(direct, links.end());
    EXPECT_TRUE(direct->lower_is_gpu);
    EXPECT_EQ(direct->upper, pci("0000:80:01.0"));
    EXPECT_EQ(direct->width, 16);
    EXPECT_EQ(direct->capable, 16);
    EXPECT_EQ(direct->speed, "2.5 GT/s PCIe");
    EXPECT_TRUE(host.findings().empty());  // x16 everywhere; the idle speed says nothing
}

TEST(PcieLinks, AGpuTrainedNarrowIsAWarningNamingItsLink) {
    LinkHost host;
    host.input.pci[pci("0000:06:00.0")].current_link_width = 8;
    const auto findings = host.findings();
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "pcie_link_narrow");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{1});
    EXPECT_NE(findings[0].message.find("GPU 1's PCIe link (0000:06:00.0 to port 0000:04:10.0) "
                                       "trained at x8, where both ends can do x16"),
              std::string::npos)
        << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("sudo lspci -vv -s 0000:06:00.0"), std::string::npos);
}

TEST(PcieLinks, ANarrowUplinkIsOneFindingForEveryGpuBelowIt) {
    LinkHost host;
    host.input.pci[pci("0000:03:00.0")].current_link_width = 4;
    host.input.pci[pci("0000:00:01.0")].current_link_width = 4;
    const auto findings = host.findings();
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].gpus, (std::vector<int>{0, 1}));
    EXPECT_NE(findings[0].message.find("from switch port 0000:03:00.0 up to 0000:00:01.0, which "
                                       "GPUs 0, 1 share, trained at x4"),
              std::string::npos)
        << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("the switch's board"), std::string::npos);
}

TEST(PcieLinks, ASlotWiredNarrowIsByDesign) {
    LinkHost host;
    host.input.pci[pci("0000:80:01.0")] = link(8, 8);  // an x16 slot with eight lanes
    host.input.pci[pci("0000:81:00.0")].current_link_width = 8;
    EXPECT_TRUE(host.findings().empty());
}

TEST(PcieLinks, TheUpperEndsWidthServesWhenTheLowerDoesNotSay) {
    LinkHost host;
    host.input.pci[pci("0000:81:00.0")].current_link_width.reset();
    host.input.pci[pci("0000:80:01.0")].current_link_width = 4;
    const auto findings = host.findings();
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{2});
}

TEST(PcieLinks, WhatSysfsDoesNotDescribeSaysNothing) {
    LinkHost host;
    host.input.pci[pci("0000:06:00.0")].current_link_width = 8;
    host.input.pci.erase(pci("0000:04:10.0"));                   // the port's maximum is unknown
    host.input.pci[pci("0000:81:00.0")].current_link_width = 0;  // a link reading 0 lanes
    EXPECT_TRUE(host.findings().empty());
    const auto links = pcie_links(host.input, host.topology);
    EXPECT_EQ(links.size(), 4U);
}

TEST(PcieLinks, AnOddPortAtTheTopEndsTheClimb) {
    LinkHost host;
    host.input.ports[2].push_back(model::PciPort{.address = pci("0000:80:00.0")});
    const auto links = pcie_links(host.input, host.topology);
    EXPECT_EQ(links.size(), 4U);  // 80:00.0 has no partner above it: no link is made up
}

// A ConnectX on switch port 04:18.0 beside GPUs 0 and 1, with a virtual function, and a
// second card wired x8 on root port 80:02.0.
DoctorInput with_nics(std::optional<int> first_width) {
    LinkHost host;
    const auto ports = [](const char* address) {
        return std::vector<model::PciPort>{model::PciPort{.address = pci(address)}};
    };
    host.input.nics = {{.path = {.device = pci("0000:07:00.0"), .ports = ports("0000:04:18.0")},
                        .rdma_devices = {"mlx5_0", "mlx5_1"}},
                       {.path = {.device = pci("0000:07:00.2"), .ports = ports("0000:04:18.0")},
                        .physical_function = pci("0000:07:00.0")},
                       {.path = {.device = pci("0000:82:00.0"), .ports = ports("0000:80:02.0")}}};
    host.input.pci[pci("0000:07:00.0")] = link(16, first_width);
    host.input.pci[pci("0000:07:00.2")] = link(16, 4);
    host.input.pci[pci("0000:04:18.0")] = link(16, first_width);
    host.input.pci[pci("0000:82:00.0")] = link(8, 8);
    host.input.pci[pci("0000:80:02.0")] = link(16, 8);
    return host.input;
}

TEST(NicLinks, ANicTrainedNarrowIsAWarningNamingItsRdmaDevices) {
    const auto input = with_nics(8);
    const auto links = nic_pcie_links(input);
    ASSERT_EQ(links.size(), 2U);  // the virtual function has no link of its own
    const auto findings = nic_link_findings(links, input.nics);
    ASSERT_EQ(findings.size(), 1U);  // the x8 card is x8 by design
    EXPECT_EQ(findings[0].id(), "nic_link_narrow");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_TRUE(findings[0].gpus.empty());
    EXPECT_EQ(findings[0].message,
              "NIC 0000:07:00.0 (mlx5_0,mlx5_1): its PCIe link (to port 0000:04:18.0) trained at "
              "x8, where both ends can do x16: its network traffic, GPUDirect RDMA included, gets "
              "8/16 of the PCIe bandwidth.");
    EXPECT_NE(findings[0].remedy.find("sudo lspci -vv -s 0000:07:00.0"), std::string::npos);
}

TEST(NicLinks, AFullWidthOrUnreadLinkSaysNothing) {
    EXPECT_TRUE(nic_link_findings(nic_pcie_links(with_nics(16)), with_nics(16).nics).empty());
    auto unread = with_nics(8);
    unread.pci.clear();  // sysfs not read: no link to judge
    EXPECT_TRUE(nic_pcie_links(unread).empty());
}

}  // namespace
}  // namespace peergate::policy::doctor
