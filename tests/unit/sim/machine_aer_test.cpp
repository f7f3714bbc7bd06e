// SPDX-License-Identifier: Apache-2.0
// A GPU's or port's AER counters in a machine file: read, checked, written back, and laid
// out as sysfs's three files where the real reader (sources/host/aer_stats.cpp) finds them.
#include "snapshot/machine_aer.hpp"

#include "sim/machine/host_root_writer.hpp"
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "sources/host/aer_stats.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sim {
namespace {

std::string machine_with_aer(const std::string& gpu_aer, const std::string& port_aer) {
    return R"({"schema": "peergate.machine/v1", "name": "aer",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:05:00.0", "aer": )" +
           gpu_aer + R"(,
                "upstream_ports": [{"pci": "0000:04:08.0", "aer": )" +
           port_aer + R"(}]},
               {"index": 1, "pci_bus_id": "00000000:06:00.0"}],
      "matrix": [["X", "PHB"], ["PHB", "X"]]})";
}

const std::string kGpuAer =
    R"({"correctable": {"RxErr": 0, "BadTLP": 37, "TOTAL_ERR_COR": 37},
        "nonfatal": {"UnsupReq": 1, "TOTAL_ERR_NONFATAL": 1}})";
const std::string kPortAer = R"({"correctable": {"RxErr": 12}})";

TEST(MachineAer, IsReadAndWrittenBackUnchanged) {
    const auto m = snapshot::parse_machine(machine_with_aer(kGpuAer, kPortAer));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_TRUE(m->gpus[0].aer.has_value());
    const auto& aer = *m->gpus[0].aer;
    ASSERT_TRUE(aer.correctable.has_value());
    EXPECT_EQ(aer.correctable->total, 37U);
    EXPECT_FALSE(aer.fatal.has_value());
    EXPECT_FALSE(m->gpus[1].aer.has_value());
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *m);
}

TEST(MachineAer, BadCountersAreErrorsNamingTheField) {
    const std::pair<std::string, std::string> cases[] = {
        {R"({"correctable": {"BadTLP": -1}})", "gpus[0].aer.correctable.BadTLP"},
        {R"({"fatal": {"DLP": "x"}})", "gpus[0].aer.fatal.DLP"},
        {R"({"nonfatal": [1]})", "gpus[0].aer.nonfatal"},
        {R"(5)", "gpus[0].aer"},
    };
    for (const auto& [aer, named] : cases) {
        const auto m = snapshot::parse_machine(machine_with_aer(aer, kPortAer));
        ASSERT_FALSE(m.has_value()) << aer;
        EXPECT_NE(m.error().message.find(named), std::string::npos)
            << aer << ": " << m.error().message;
    }
}

TEST(MachineAer, CanonicalFormKeepsNamedCountsAboveZeroByName) {
    model::PciAer aer{.correctable = model::AerCounters{
                          .counts = {{"Timeout", 2}, {"RxErr", 0}, {"BadTLP", 37}}, .total = 39}};
    const auto canonical = snapshot::canonical_aer(aer);
    ASSERT_TRUE(canonical.correctable.has_value());
    EXPECT_EQ(canonical.correctable->counts,
              (std::vector<std::pair<std::string, std::uint64_t>>{{"BadTLP", 37}, {"Timeout", 2}}));
    EXPECT_EQ(canonical.correctable->total, 39U);
}

TEST(MachineAer, TheSimulatedSysfsShowsItToTheRealReader) {
    const auto m = snapshot::parse_machine(machine_with_aer(kGpuAer, kPortAer));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    const test::ScratchDir scratch;
    ASSERT_TRUE(write_host_root(*m, scratch.file("root")).has_value());
    const sources::host::HostRoot root(scratch.file("root"));
    const auto gpu = sources::host::read_aer(root, m->gpus[0].pci);
    ASSERT_TRUE(gpu.has_value());
    EXPECT_EQ(gpu->correctable, m->gpus[0].aer->correctable);
    EXPECT_EQ(gpu->nonfatal, m->gpus[0].aer->nonfatal);
    EXPECT_FALSE(gpu->fatal.has_value());  // not given: not written
    const auto port = sources::host::read_aer(root, m->gpus[0].upstream_ports[0].pci);
    ASSERT_TRUE(port.has_value());
    EXPECT_EQ(port->correctable->total, 12U);  // the writer's total line: the sum
    EXPECT_FALSE(sources::host::read_aer(root, m->gpus[1].pci).has_value());  // AER off
}

}  // namespace
}  // namespace peergate::sim
