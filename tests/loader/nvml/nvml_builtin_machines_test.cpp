// SPDX-License-Identifier: Apache-2.0
// Tier 1 on every built-in machine reads exactly what the machine file says: the same GPUs
// (name, bus id, UUID, NUMA node, CPU list) and the same matrix the simulated nvidia-smi
// prints, so the two tiers agree unless a machine file makes them disagree.
#include "loader/nvml/nvml_loader_support.hpp"
#include "snapshot/derived.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace peergate {
namespace {

using namespace testing_nvml;  // NOLINT(google-build-using-namespace)

TEST(NvmlBuiltinMachines, NvmlReadsWhatEachMachineFileSays) {
    const auto dir = std::filesystem::path(PEERGATE_SOURCE_DIR) / "machines";
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        SCOPED_TRACE(entry.path().filename().string());
        auto machine = snapshot::load_machine(entry.path().string());
        ASSERT_TRUE(machine) << machine.error().message;
        const auto result = run_tier(entry.path().string());
        if (machine->gpus.size() < 2) {
            EXPECT_FALSE(result.topology) << "one GPU is no verdict";
            continue;
        }
        ASSERT_TRUE(result.topology) << result.topology.error().message;
        const auto expected = snapshot::machine_topology(*machine);
        EXPECT_EQ(result.topology->gpus, expected.gpus);
        EXPECT_EQ(result.topology->matrix, expected.matrix);
        ++checked;
    }
    EXPECT_GE(checked, 5) << "the built-in machines were not found in " << dir;
}

}  // namespace
}  // namespace peergate
