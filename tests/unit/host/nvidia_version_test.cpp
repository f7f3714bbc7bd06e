// SPDX-License-Identifier: Apache-2.0
// Which NVIDIA kernel module runs, and the kernel's release (sources/host/nvidia_version,
// model::kernel_at_least): what decides whether DMA-BUF can carry GPUDirect RDMA.
#include "sources/host/nvidia_version.hpp"

#include "support/fixture_files.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;
using model::KernelModuleFlavour;

TEST(NvidiaVersion, ReadsTheProprietaryModulesLine) {
    const auto module = parse_nvidia_version(
        test::read_fixture("host", "proc-driver-nvidia/version-proprietary-515.76.txt"));
    ASSERT_TRUE(module.has_value());
    EXPECT_EQ(module->flavour, KernelModuleFlavour::proprietary);
    EXPECT_EQ(module->version, "515.76");
}

TEST(NvidiaVersion, ReadsTheOpenModulesLine) {
    const auto module = parse_nvidia_version(
        test::read_fixture("host", "proc-driver-nvidia/version-open-555.58.02.txt"));
    ASSERT_TRUE(module.has_value());
    EXPECT_EQ(module->flavour, KernelModuleFlavour::open);
    EXPECT_EQ(module->version, "555.58.02");
    const auto arm = parse_nvidia_version(
        "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.65.06  Release Build\n");
    ASSERT_TRUE(arm.has_value());
    EXPECT_EQ(arm->flavour, KernelModuleFlavour::open);
    EXPECT_EQ(arm->version, "580.65.06");
}

TEST(NvidiaVersion, AnythingElseIsNotUnderstood) {
    EXPECT_EQ(parse_nvidia_version(""), std::nullopt);
    EXPECT_EQ(parse_nvidia_version("GCC version:  gcc version 7.5.0\n"), std::nullopt);
    EXPECT_EQ(parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"),
              std::nullopt);
    EXPECT_EQ(parse_nvidia_version("NVRM version: Module 550.54\n"), std::nullopt);
    EXPECT_EQ(parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  v550\n"),
              std::nullopt);
    EXPECT_EQ(parse_nvidia_version("\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  1.0\n"),
              std::nullopt);  // the first line names the module
}

TEST(NvidiaVersion, KernelReleasesCompareByMajorAndMinor) {
    EXPECT_EQ(model::kernel_at_least("6.8.0-49-generic", 5, 12), true);
    EXPECT_EQ(model::kernel_at_least("5.12.0", 5, 12), true);
    EXPECT_EQ(model::kernel_at_least("5.14.0-427.13.1.el9_4.x86_64", 5, 12), true);
    EXPECT_EQ(model::kernel_at_least("5.4.0-146-generic", 5, 12), false);
    EXPECT_EQ(model::kernel_at_least("4.18.0-553.el8_10.x86_64", 5, 12), false);
    EXPECT_EQ(model::kernel_at_least("", 5, 12), std::nullopt);
    EXPECT_EQ(model::kernel_at_least("6", 5, 12), std::nullopt);
    EXPECT_EQ(model::kernel_at_least("linux-6.1", 5, 12), std::nullopt);
}

TEST(NvidiaVersion, ReadsBothUnderTheHostRoot) {
    const fs::path root =
        fs::temp_directory_path() / ("peergate-nvversion-" + std::to_string(::getpid()));
    fs::create_directories(root / "proc/driver/nvidia");
    fs::create_directories(root / "proc/sys/kernel");
    const HostRoot host(root.string());
    EXPECT_EQ(read_nvidia_module(host), std::nullopt);  // no driver loaded
    EXPECT_EQ(read_kernel_release(host), "");
    ASSERT_TRUE(util::write_file_atomically(
        (root / "proc/driver/nvidia/version").string(),
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Wed Apr 29 17:32:45 UTC "
        "2026\n"));
    ASSERT_TRUE(util::write_file_atomically((root / "proc/sys/kernel/osrelease").string(),
                                            "6.8.0-49-generic\n"));
    EXPECT_EQ(read_nvidia_module(host),
              (model::NvidiaKernelModule{.flavour = KernelModuleFlavour::proprietary,
                                         .version = "580.159.04"}));
    EXPECT_EQ(read_kernel_release(host), "6.8.0-49-generic");
    fs::remove_all(root);
}

}  // namespace
}  // namespace peergate::sources::host
