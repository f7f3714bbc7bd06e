// SPDX-License-Identifier: Apache-2.0
// The doctor's text lines on each examined GPU's links (report/doctor/links_text.cpp): the
// PCIe link as trained against what both ends can do, the NVLinks up, and the counters; only
// the GPUs examined, and nothing where no layer said anything.
#include "report/doctor/links_text.hpp"
#include "support/pci_builders.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::report::doctor {
namespace {

using test::pci;

// GPU 0 on root port 00:01.0 at x8 of x16; GPU 1 on 00:02.0 at x16; both with 18 NVLinks,
// GPU 1's link 3 counting 7 replays; AER on GPU 0 with 2 correctable errors.
policy::doctor::DoctorInput input() {
    policy::doctor::DoctorInput in;
    model::Topology topology;
    for (int g = 0; g < 2; ++g) {
        const auto gpu = pci(g == 0 ? "0000:05:00.0" : "0000:06:00.0");
        const auto port = pci(g == 0 ? "0000:00:01.0" : "0000:00:02.0");
        topology.gpus.push_back(model::Gpu{.index = g, .pci = gpu});
        in.ports[g] = {model::PciPort{.address = port}};
        in.pci[gpu] = model::PciAttributes{.max_link_width = 16,
                                           .current_link_speed = "2.5 GT/s PCIe",
                                           .current_link_width = g == 0 ? 8 : 16};
        in.pci[port] = model::PciAttributes{.max_link_width = 16};
        policy::doctor::GpuLinks links{.gpu = g, .name = "H100", .slots = 18};
        model::LinkErrors errors{.link = 3};
        errors.counts.value = {g == 1 ? 7U : 0U, 0U, 0U, std::nullopt};
        links.errors.push_back(errors);
        in.links.push_back(links);
    }
    in.aer[pci("0000:05:00.0")] =
        model::PciAer{.correctable = model::AerCounters{.counts = {{"BadTLP", 2}}}};
    in.discovery.topology = topology;
    return in;
}

TEST(DoctorLinksText, OneLinePerGpuWithWhatEachLayerSaid) {
    const auto text = links_to_text(input());
    EXPECT_NE(text.find("\n  GPU0  PCIe x8 of x16, 2.5 GT/s PCIe now; NVLinks 18 of 18 up; "
                        "2 PCIe AER errors\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("\n  GPU1  PCIe x16 of x16, 2.5 GT/s PCIe now; NVLinks 18 of 18 up; "
                        "7 NVLink errors\n"),
              std::string::npos)
        << text;
}

TEST(DoctorLinksText, NicsBelowAGpusSwitchWithWhereAcsSendsTheirTraffic) {
    auto in = input();
    const auto port = [](const char* address, std::uint16_t acs) {
        return model::PciPort{.address = pci(address), .acs = model::AcsControl{acs}};
    };
    // GPU 0 moves below switch port 04:08.0 (upstream 03:00.0), beside two NICs.
    in.ports[0] = {port("0000:04:08.0", 0x001d), port("0000:03:00.0", 0), port("0000:00:01.0", 0)};
    in.nics = {{.path = {.device = pci("0000:07:00.0"),
                         .ports = {port("0000:04:18.0", 0x0000), port("0000:03:00.0", 0)}},
                .rdma_devices = {"mlx5_0"}},
               {.path = {.device = pci("0000:c1:00.0"), .ports = {port("0000:c0:01.0", 0)}}}};
    const auto text = links_to_text(in);
    EXPECT_NE(text.find("7 NVLink errors\n"), std::string::npos) << text;  // GPU 1: no NIC
    EXPECT_NE(
        text.find("2 PCIe AER errors; NIC 0000:07:00.0 (mlx5_0) on its switch (ACS redirect)\n"),
        std::string::npos)
        << text;
    EXPECT_EQ(text.find("0000:c1:00.0"), std::string::npos) << text;
}

TEST(DoctorLinksText, OnlyTheGpusExamined) {
    auto in = input();
    in.selection = {1};
    in.ports.erase(0);
    const auto text = links_to_text(in);
    EXPECT_EQ(text.find("GPU0"), std::string::npos) << text;
    EXPECT_NE(text.find("GPU1"), std::string::npos);
}

TEST(DoctorLinksText, NothingToSayIsNoSection) {
    policy::doctor::DoctorInput in;
    EXPECT_EQ(links_to_text(in), "");
    in.discovery.topology = model::Topology{};
    EXPECT_EQ(links_to_text(in), "");
}

}  // namespace
}  // namespace peergate::report::doctor
