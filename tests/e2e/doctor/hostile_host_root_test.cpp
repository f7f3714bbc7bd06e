// SPDX-License-Identifier: Apache-2.0
// A host root whose files are FIFOs or devices (issue 34, item 6): gate and doctor read every
// host file through util::read_regular_file, so a FIFO at proc/cmdline or an IOMMU group's
// type, or cpuinfo linked to /dev/zero, is unreadable with the reason and never waited on or
// read whole. Before, each of these hung gate and doctor (or grew without end).
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

// tests/fixtures/host/bare-metal-dma copied into `dir`, then made hostile.
std::string hostile_root(const ScratchDir& scratch) {
    const fs::path root = fs::path(scratch.path()) / "root";
    fs::copy(std::string(PEERGATE_SOURCE_DIR) + "/tests/fixtures/host/bare-metal-dma",
             root,
             fs::copy_options::recursive);
    fs::create_directories(root / "proc");
    EXPECT_EQ(::mkfifo((root / "proc/cmdline").c_str(), 0600), 0);
    fs::remove(root / "sys/kernel/iommu_groups/0/type");
    EXPECT_EQ(::mkfifo((root / "sys/kernel/iommu_groups/0/type").c_str(), 0600), 0);
    fs::remove(root / "proc/cpuinfo");
    fs::create_symlink("/dev/zero", root / "proc/cpuinfo");
    return root.string();
}

std::vector<std::string> on_root(const std::string& root, std::vector<std::string> command) {
    std::vector<std::string> args{"--nvml-lib",
                                  "/nonexistent/libnvidia-ml.so.1",
                                  "--cuda-lib",
                                  "/nonexistent/libcuda.so.1",
                                  "--nvidia-smi",
                                  "/nonexistent/nvidia-smi",
                                  "--host-root",
                                  root};
    args.insert(args.end(), command.begin(), command.end());
    return args;
}

TEST(HostileHostRoot, GateAndDoctorFinishAndFailClosed) {
    const ScratchDir scratch;
    const auto root = hostile_root(scratch);
    const auto gate =
        run_peergate(on_root(root, {"gate", "--json"}), clean_env(), std::chrono::seconds(20));
    EXPECT_FALSE(gate.process.timed_out);
    const auto decision = stdout_json(gate);
    EXPECT_EQ(decision["p2p"], false) << decision.dump(2);
    const auto doctor =
        run_peergate(on_root(root, {"doctor", "--json"}), clean_env(), std::chrono::seconds(20));
    EXPECT_FALSE(doctor.process.timed_out);
    EXPECT_FALSE(stdout_json(doctor).is_null()) << doctor.process.err;
}

}  // namespace
}  // namespace peergate::test
