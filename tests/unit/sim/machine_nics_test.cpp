// SPDX-License-Identifier: Apache-2.0
// The network functions of a machine file: read, checked (function 0, a network class, ids
// as sysfs writes them, ports that agree with the GPUs' where shared), written back, and laid
// out in the simulated sysfs where the real reader (sources/host/network_devices.cpp) finds
// them with the ports above.
#include "sim/machine/host_root_writer.hpp"
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "sources/host/network_devices.hpp"
#include "sources/host/pci_attributes.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sim {
namespace {

std::string machine_with_nics(const std::string& nic) {
    return R"({"schema": "peergate.machine/v1", "name": "nics",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:05:00.0",
                "upstream_ports": [{"pci": "0000:04:08.0"}, {"pci": "0000:03:00.0"}]},
               {"index": 1, "pci_bus_id": "00000000:06:00.0"}],
      "matrix": [["X", "PHB"], ["PHB", "X"]],
      "nics": [)" +
           nic + "]}";
}

const std::string kNic = R"({"pci_bus_id": "0000:07:00.0", "class": "0x020700",
    "vendor": "0x15b3", "device": "0x101b", "numa_node": 0,
    "upstream_ports": [{"pci": "0000:04:18.0"}, {"pci": "0000:03:00.0"}],
    "pcie_link": {"max_speed": "16.0 GT/s PCIe", "max_width": 16},
    "rdma_devices": ["mlx5_0"], "interfaces": ["ibp7s0"]})";

TEST(MachineNics, AreReadAndWrittenBackUnchanged) {
    const auto m = snapshot::parse_machine(machine_with_nics(kNic));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_EQ(m->nics.size(), 1U);
    EXPECT_EQ(m->nics[0].pci_class, "0x020700");
    EXPECT_EQ(m->nics[0].upstream_ports.size(), 2U);
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *m);
}

TEST(MachineNics, BadEntriesAreErrorsNamingTheField) {
    const std::pair<std::string, std::string> cases[] = {
        {R"({"pci_bus_id": "0000:07:00.1"}, {"pci_bus_id": "0000:07:00.1"})",
         "nics[1].pci_bus_id: 0000:07:00.1 is listed twice"},
        {R"({"pci_bus_id": "0000:07:00.0", "class": "0x030200"})", "nics[0].class"},
        {R"({"pci_bus_id": "0000:07:00.0", "vendor": "mellanox"})", "nics[0]: vendor and device"},
        {R"({"class": "0x020000"})", "nics[0].pci_bus_id"},
        {R"({"pci_bus_id": "0000:07:00.0", "upstream_ports": [{"pci": 5}]})",
         "nics[0].upstream_ports[0].pci"},
        {R"({"pci_bus_id": "0000:07:00.0",
             "upstream_ports": [{"pci": "0000:03:00.0", "acs_control": "0x001d"}]})",
         "port 0000:03:00.0 has two different acs_control values"},
        {R"({"pci_bus_id": "0000:07:00.0", "rdma_devices": ["../mlx5_0"]})",
         "nics[0].rdma_devices: \"../mlx5_0\" is not a device name"},
        {R"({"pci_bus_id": "0000:07:00.0", "interfaces": "ib0"})",
         "nics[0].interfaces: a list of names is required"},
        {R"({"pci_bus_id": "0000:07:00.0", "physfn": "0000:07:00.0"})",
         "nics[0].physfn: the PCI bus id of another function"},
    };
    for (const auto& [nic, named] : cases) {
        const auto m = snapshot::parse_machine(machine_with_nics(nic));
        ASSERT_FALSE(m.has_value()) << nic;
        EXPECT_NE(m.error().message.find(named), std::string::npos)
            << nic << ": " << m.error().message;
    }
}

TEST(MachineNics, TheSimulatedSysfsShowsThemToTheRealReader) {
    const auto m = snapshot::parse_machine(machine_with_nics(kNic));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    const test::ScratchDir scratch;
    ASSERT_TRUE(write_host_root(*m, scratch.file("root")).has_value());
    const sources::host::HostRoot root(scratch.file("root"));
    const auto nics = sources::host::network_devices(root);
    ASSERT_EQ(nics.size(), 1U);
    EXPECT_EQ(nics[0].device.to_sysfs(), "0000:07:00.0");
    ASSERT_EQ(nics[0].ports.size(), 2U);
    EXPECT_EQ(nics[0].ports[0].address.to_sysfs(), "0000:04:18.0");
    EXPECT_EQ(nics[0].ports[1].address.to_sysfs(), "0000:03:00.0");
    const auto read = sources::host::read_pci_attributes(root, nics[0].device);
    EXPECT_EQ(read.vendor, "0x15b3");
    EXPECT_EQ(read.device, "0x101b");
    EXPECT_EQ(read.max_link_width, 16);
    EXPECT_EQ(read.numa_node, 0);
    const auto named = sources::host::read_nics(root);
    ASSERT_EQ(named.size(), 1U);
    EXPECT_EQ(named[0].path, nics[0]);
    EXPECT_EQ(named[0].numa_node, 0);
    EXPECT_EQ(named[0].rdma_devices, std::vector<std::string>{"mlx5_0"});
    EXPECT_EQ(named[0].interfaces, std::vector<std::string>{"ibp7s0"});
    EXPECT_FALSE(named[0].physical_function.has_value());
}

// An SR-IOV virtual function: its physfn link leads the reader to its physical function, and
// the machine file writes it back.
TEST(MachineNics, AVirtualFunctionNamesItsPhysicalOne) {
    const std::string vf = R"({"pci_bus_id": "0000:07:01.0", "class": "0x020700",
        "upstream_ports": [{"pci": "0000:04:18.0"}, {"pci": "0000:03:00.0"}],
        "physfn": "0000:07:00.0"})";
    const auto m = snapshot::parse_machine(machine_with_nics(std::string(kNic) + ", " + vf));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    EXPECT_EQ(snapshot::parse_machine(snapshot::to_json_text(*m)).value(), *m);
    const test::ScratchDir scratch;
    ASSERT_TRUE(write_host_root(*m, scratch.file("root")).has_value());
    const auto nics = sources::host::read_nics(sources::host::HostRoot(scratch.file("root")));
    ASSERT_EQ(nics.size(), 2U);
    EXPECT_FALSE(nics[0].physical_function.has_value());
    ASSERT_TRUE(nics[1].physical_function.has_value());
    EXPECT_EQ(nics[1].physical_function->to_sysfs(), "0000:07:00.0");
}

}  // namespace
}  // namespace peergate::sim
