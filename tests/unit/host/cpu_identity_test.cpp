// SPDX-License-Identifier: Apache-2.0
// The CPUs' kind from /proc/cpuinfo and /proc/sys/kernel/arch under a host root
// (sources/host/cpu_identity), as export nccl-topo writes it on each <cpu>.
#include "sources/host/cpu_identity.hpp"

#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;

// Two processors of an AMD EPYC 9354 (Genoa) as the kernel prints them, trimmed.
constexpr const char* kGenoa =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n"
    "model name\t: AMD EPYC 9354 32-Core Processor\nflags\t\t: fpu vme\n\n"
    "processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n\n";

TEST(CpuIdentity, TheFirstProcessorNamesTheKind) {
    const auto cpu = parse_cpuinfo_identity(kGenoa);
    EXPECT_EQ(cpu.vendor, "AuthenticAMD");
    EXPECT_EQ(cpu.family, 25);
    EXPECT_EQ(cpu.model, 17);
    // arm64's cpuinfo names no vendor_id, family or model: nothing is guessed.
    const auto arm =
        parse_cpuinfo_identity("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd4f\n");
    EXPECT_EQ(arm, model::CpuIdentity{});
}

TEST(CpuIdentity, ArchComesFromTheRootsKernelNotFromThisBuild) {
    const auto root =
        fs::temp_directory_path() / ("peergate-cpu-kind-" + std::to_string(::getpid()));
    fs::create_directories(root / "proc/sys/kernel");
    ASSERT_TRUE(util::write_file_atomically((root / "proc/cpuinfo").string(), kGenoa));
    auto cpu = read_cpu_identity(HostRoot(root.string()));
    EXPECT_EQ(cpu.arch, "");  // a recorded host without the sysctl: unknown, not uname's
    EXPECT_EQ(cpu.model, 17);
    ASSERT_TRUE(util::write_file_atomically((root / "proc/sys/kernel/arch").string(), "aarch64\n"));
    cpu = read_cpu_identity(HostRoot(root.string()));
    EXPECT_EQ(cpu.arch, "aarch64");
    fs::remove_all(root);
    EXPECT_EQ(read_cpu_identity(HostRoot(root.string())), model::CpuIdentity{});
}

}  // namespace
}  // namespace peergate::sources::host
