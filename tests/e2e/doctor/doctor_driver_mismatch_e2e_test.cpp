// SPDX-License-Identifier: Apache-2.0
// A driver upgraded without a reboot, end to end: the simulated machine's running module
// (host.kernel_module_version) is older than its user-space driver, so simulated NVML,
// nvidia-smi and CUDA refuse to start as the real ones do, and the doctor names both
// versions and the remedy instead of "topology unreadable".
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string upgraded_without_reboot(const test::ScratchDir& scratch) {
    auto machine = test::load_builtin_machine("pcie-rtx6000ada-2x-iommu");
    machine.host.kernel_module_version = "560.35.03";  // driver_version is 570.86.15
    return scratch.write("mismatch.json", snapshot::to_json_text(machine));
}

TEST(DoctorDriverMismatch, NamesBothVersionsAndTheRemedy) {
    const test::ScratchDir scratch;
    const auto run =
        run_peergate({"--simulate", upgraded_without_reboot(scratch), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;  // a known problem
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "problems");
    const auto* finding = find_finding(doc, "driver_version_mismatch");
    ASSERT_NE(finding, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*finding)["severity"], "error");
    const auto message = (*finding)["message"].get<std::string>();
    EXPECT_NE(message.find("The NVIDIA user-space driver (NVML library 570.86) and the kernel "
                           "module running (560.35.03, /proc/driver/nvidia/version) are "
                           "different versions"),
              std::string::npos)
        << message;
    EXPECT_NE((*finding)["remedy"].get<std::string>().find("Reboot"), std::string::npos);
    EXPECT_EQ(find_finding(doc, "topology_unreadable"), nullptr);
    EXPECT_EQ(doc["layers"]["host"]["nvidia_kernel_module"]["version"], "560.35.03");
}

TEST(DoctorDriverMismatch, TheGateFailsClosed) {
    const test::ScratchDir scratch;
    const auto run =
        run_peergate({"--simulate", upgraded_without_reboot(scratch), "gate", "--json"});
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false) << run.process.out;
}

}  // namespace
}  // namespace peergate::test
