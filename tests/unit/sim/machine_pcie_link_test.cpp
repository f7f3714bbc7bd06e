// SPDX-License-Identifier: Apache-2.0
// A GPU's or port's PCIe link in a machine file: read, checked, written back, laid out in the
// simulated sysfs where the real reader (sources/host/pci_attributes.cpp) finds it.
#include "sim/machine/host_root_writer.hpp"
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "sources/host/pci_attributes.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sim {
namespace {

std::string machine_with_pcie_link(const std::string& gpu_link, const std::string& port_link) {
    return R"({"schema": "peergate.machine/v1", "name": "links",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:05:00.0", "pcie_link": )" +
           gpu_link + R"(,
                "upstream_ports": [{"pci": "0000:04:08.0", "pcie_link": )" +
           port_link + R"(}]},
               {"index": 1, "pci_bus_id": "00000000:06:00.0"}],
      "matrix": [["X", "PHB"], ["PHB", "X"]]})";
}

const std::string kGpuLink =
    R"({"max_speed": "16.0 GT/s PCIe", "max_width": 16, "current_speed": "2.5 GT/s PCIe",
        "current_width": 8})";
const std::string kPortLink = R"({"max_speed": "16.0 GT/s PCIe", "max_width": 16})";

TEST(MachinePcieLink, IsReadAndWrittenBackUnchanged) {
    const auto m = snapshot::parse_machine(machine_with_pcie_link(kGpuLink, kPortLink));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_TRUE(m->gpus[0].pcie_link.has_value());
    EXPECT_EQ(m->gpus[0].pcie_link->current_width, 8);
    EXPECT_EQ(m->gpus[0].pcie_link->current_speed, "2.5 GT/s PCIe");
    ASSERT_TRUE(m->gpus[0].upstream_ports[0].pcie_link.has_value());
    EXPECT_FALSE(m->gpus[0].upstream_ports[0].pcie_link->current_width.has_value());
    EXPECT_FALSE(m->gpus[1].pcie_link.has_value());
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *m);
}

TEST(MachinePcieLink, BadLinksAreErrorsNamingTheField) {
    const std::pair<std::string, std::string> cases[] = {
        {R"({"max_width": 0})", "gpus[0].pcie_link.max_width"},
        {R"({"current_width": 64})", "gpus[0].pcie_link.current_width"},
        {R"({"current_width": "x8"})", "gpus[0].pcie_link.current_width"},
        {R"({"max_speed": "fast"})", "gpus[0].pcie_link.max_speed"},
        {R"([16])", "gpus[0].pcie_link"},
    };
    for (const auto& [link, named] : cases) {
        const auto m = snapshot::parse_machine(machine_with_pcie_link(link, kPortLink));
        ASSERT_FALSE(m.has_value()) << link;
        EXPECT_NE(m.error().message.find(named), std::string::npos)
            << link << ": " << m.error().message;
    }
    const auto port =
        snapshot::parse_machine(machine_with_pcie_link(kGpuLink, R"({"max_width": 40})"));
    ASSERT_FALSE(port.has_value());
    EXPECT_NE(port.error().message.find("gpus[0].upstream_ports[0].pcie_link.max_width"),
              std::string::npos)
        << port.error().message;
}

TEST(MachinePcieLink, ASharedPortHasOneLink) {
    const std::string two = R"({"schema": "peergate.machine/v1", "name": "shared",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:05:00.0",
                "upstream_ports": [{"pci": "0000:03:00.0", "pcie_link": {"max_width": 16}}]},
               {"index": 1, "pci_bus_id": "00000000:06:00.0",
                "upstream_ports": [{"pci": "0000:03:00.0", "pcie_link": {"max_width": 8}}]}],
      "matrix": [["X", "PIX"], ["PIX", "X"]]})";
    const auto m = snapshot::parse_machine(two);
    ASSERT_FALSE(m.has_value());
    EXPECT_NE(m.error().message.find("port 0000:03:00.0 has two different pcie_link values"),
              std::string::npos)
        << m.error().message;
}

TEST(MachinePcieLink, TheSimulatedSysfsShowsItToTheRealReader) {
    const auto m = snapshot::parse_machine(machine_with_pcie_link(kGpuLink, kPortLink));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    const test::ScratchDir scratch;
    ASSERT_TRUE(write_host_root(*m, scratch.file("root")).has_value());
    const sources::host::HostRoot root(scratch.file("root"));
    const auto gpu = sources::host::read_pci_attributes(root, m->gpus[0].pci);
    EXPECT_EQ(gpu.max_link_width, 16);
    EXPECT_EQ(gpu.current_link_width, 8);
    EXPECT_EQ(gpu.current_link_speed, "2.5 GT/s PCIe");
    const auto port = sources::host::read_pci_attributes(root, m->gpus[0].upstream_ports[0].pci);
    EXPECT_EQ(port.max_link_speed, "16.0 GT/s PCIe");
    EXPECT_FALSE(port.current_link_width.has_value());  // not given: not written
    const auto other = sources::host::read_pci_attributes(root, m->gpus[1].pci);
    EXPECT_TRUE(other.max_link_speed.empty());
}

}  // namespace
}  // namespace peergate::sim
