// SPDX-License-Identifier: Apache-2.0
// A GPU's upstream PCIe ports in a machine file: read, checked, written back, and laid out
// in the simulated sysfs so that the real reader (sources/host/pci_tree.cpp) finds them.
#include "sim/machine/host_root_writer.hpp"
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "sources/host/pci_tree.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sim {
namespace {

using test::ScratchDir;

std::string machine_with_ports(const std::string& ports0, const std::string& ports1) {
    return R"({"schema": "peergate.machine/v1", "name": "ports",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:05:00.0", "upstream_ports": )" +
           ports0 + R"(},
               {"index": 1, "pci_bus_id": "00000000:06:00.0", "upstream_ports": )" +
           ports1 + R"(}],
      "matrix": [["X", "PIX"], ["PIX", "X"]]})";
}

const std::string kPorts0 =
    R"([{"pci": "0000:04:08.0", "acs_control": "0x001d"}, {"pci": "0000:03:00.0"}])";
const std::string kPorts1 =
    R"([{"pci": "0000:04:10.0", "acs_control": "0x0000"}, {"pci": "0000:03:00.0"}])";

TEST(MachinePorts, AreReadAndWrittenBackUnchanged) {
    const auto m = snapshot::parse_machine(machine_with_ports(kPorts0, kPorts1));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_EQ(m->gpus[0].upstream_ports.size(), 2U);
    EXPECT_EQ(m->gpus[0].upstream_ports[0].acs_control, std::optional<std::uint16_t>(0x001d));
    EXPECT_FALSE(m->gpus[0].upstream_ports[1].acs_control.has_value());
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *m);
}

TEST(MachinePorts, BadPortsAreErrorsNamingTheField) {
    const auto bad_word = snapshot::parse_machine(
        machine_with_ports(R"([{"pci": "0000:04:08.0", "acs_control": "0xfffff"}])", "[]"));
    ASSERT_FALSE(bad_word.has_value());
    EXPECT_NE(bad_word.error().message.find("gpus[0].upstream_ports[0].acs_control"),
              std::string::npos)
        << bad_word.error().message;
    const auto bad_pci = snapshot::parse_machine(machine_with_ports(R"([{"pci": "04:08"}])", "[]"));
    ASSERT_FALSE(bad_pci.has_value());
    EXPECT_NE(bad_pci.error().message.find("upstream_ports[0].pci"), std::string::npos);
    const auto conflict = snapshot::parse_machine(
        machine_with_ports(R"([{"pci": "0000:03:00.0", "acs_control": "0x0001"}])", kPorts1));
    ASSERT_FALSE(conflict.has_value());
    EXPECT_NE(conflict.error().message.find("0000:03:00.0 has two different acs_control"),
              std::string::npos)
        << conflict.error().message;
    const auto twice = snapshot::parse_machine(
        machine_with_ports(R"([{"pci": "0000:03:00.0"}, {"pci": "0000:03:00.0"}])", "[]"));
    ASSERT_FALSE(twice.has_value());
    EXPECT_NE(twice.error().message.find("listed twice"), std::string::npos);
}

TEST(MachinePorts, TheSimulatedSysfsGivesThemBackToTheRealReader) {
    const auto m = snapshot::parse_machine(machine_with_ports(kPorts0, kPorts1));
    ASSERT_TRUE(m.has_value());
    const ScratchDir scratch;
    ASSERT_TRUE(write_host_root(*m, scratch.file("root")).has_value());
    const sources::host::HostRoot root(scratch.file("root"));
    const auto ports = sources::host::ports_above(root, m->gpus[0].pci);
    ASSERT_TRUE(ports.has_value()) << ports.error().message;
    ASSERT_EQ(ports->size(), 2U);
    EXPECT_EQ((*ports)[0].address.to_sysfs(), "0000:04:08.0");
    EXPECT_EQ((*ports)[0].acs, model::AcsControl{0x001d});
    EXPECT_EQ((*ports)[1].address.to_sysfs(), "0000:03:00.0");
    EXPECT_FALSE((*ports)[1].acs.has_value());
    EXPECT_TRUE((*ports)[1].unread.empty());
    const auto other = sources::host::ports_above(root, m->gpus[1].pci);
    ASSERT_TRUE(other.has_value());
    EXPECT_EQ((*other)[0].acs, model::AcsControl{0x0000});
    // The GPU's own attributes still sit where the other readers look.
    EXPECT_TRUE(root.read_text("/sys/bus/pci/devices/0000:05:00.0/vendor").has_value());
}

TEST(MachinePorts, AnUnknownControlWordReplaysAsUnreadable) {
    const auto m = snapshot::parse_machine(
        machine_with_ports(R"([{"pci": "0000:04:08.0", "acs_control": "unknown"}])", "[]"));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    EXPECT_TRUE(m->gpus[0].upstream_ports[0].acs_unread);
    EXPECT_EQ(*snapshot::parse_machine(snapshot::to_json_text(*m)), *m);
    const ScratchDir scratch;
    ASSERT_TRUE(write_host_root(*m, scratch.file("root")).has_value());
    const auto ports =
        sources::host::ports_above(sources::host::HostRoot(scratch.file("root")), m->gpus[0].pci);
    ASSERT_TRUE(ports.has_value());
    EXPECT_FALSE((*ports)[0].acs.has_value());
    EXPECT_NE((*ports)[0].unread.find("needs root"), std::string::npos) << (*ports)[0].unread;
}

}  // namespace
}  // namespace peergate::sim
