// SPDX-License-Identifier: Apache-2.0
// Two GPUs that report one PCI bus id are a contradiction, not two GPUs (issue 34, item 8):
// on the bridged A100 box with GPU 2 repeating GPU 1's bus id, the identity join mapped the
// child's GPUs onto the wrong rows and the gate allowed `--gpus 0,2`, a SYS pair. Now both
// tiers refuse their matrix with the reason, and the gate vetoes naming it.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace peergate::test {
namespace {

TEST(GateIdentityContradiction, ARepeatedBusIdMakesTheMatrixUnreadableAndVetoes) {
    const ScratchDir scratch;
    auto machine = nlohmann::json::parse(*util::read_file(builtin_machine_path("bridged-a100-4x")));
    machine["gpus"][2]["pci_bus_id"] = machine["gpus"][1]["pci_bus_id"];
    const std::string file = scratch.file("repeated-bus-id.json");
    ASSERT_TRUE(util::write_file_atomically(file, machine.dump(2)).has_value());
    const auto run = run_peergate({"--simulate", file, "gate", "--gpus", "0,2", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_EQ(doc["rule"], "no_matrix");
    EXPECT_NE(doc["reason"].get<std::string>().find(
                  "identity: GPU1 and GPU2 report the same PCI bus id 00000000:31:00.0"),
              std::string::npos)
        << doc["reason"];
}

}  // namespace
}  // namespace peergate::test
