// SPDX-License-Identifier: Apache-2.0
// What the host root says about the IOMMU, the hypervisor and the peer-memory module
// (sources/host/host_facts_reader): docs/gate-rules.md's IOMMU rule, read from trees written to the
// layout of the kernel's Documentation/ABI/testing/sysfs-kernel-iommu_groups.
#include "sources/host/host_facts_reader.hpp"

#include "support/fixture_files.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace peergate::sources::host {
namespace {

namespace fs = std::filesystem;
using model::IommuMode;

// A host root in a fresh temporary directory, removed afterwards.
class HostTree : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_FALSE(scratch_.path().empty()); }

    void write(const std::string& absolute, const std::string& text) const {
        const fs::path path = root_ / absolute.substr(1);
        fs::create_directories(path.parent_path());
        std::ofstream(path) << text;
    }

    void group(int number, const std::string& type) const {
        write("/sys/kernel/iommu_groups/" + std::to_string(number) + "/type", type + "\n");
    }

    IommuMode mode(std::string* detail = nullptr) const {
        return read_iommu_mode(HostRoot(root_.string()), detail);
    }

    test::ScratchDir scratch_;
    fs::path root_{scratch_.path()};
};

TEST_F(HostTree, NoGroupsDirectoryOrNoGroupIsOff) {
    std::string detail;
    EXPECT_EQ(mode(&detail), IommuMode::off);
    EXPECT_EQ(detail, "no /sys/kernel/iommu_groups");
    fs::create_directories(root_ / "sys/kernel/iommu_groups");
    EXPECT_EQ(mode(&detail), IommuMode::off);
    EXPECT_EQ(detail, "no IOMMU groups");
}

TEST_F(HostTree, IdentityEverywhereIsPassThrough) {
    group(0, "identity");
    group(7, "identity");
    std::string detail;
    EXPECT_EQ(mode(&detail), IommuMode::identity);
    EXPECT_EQ(detail, "2 groups, all identity");
}

// Every domain type the kernel documents that is not identity translates (or blocks) DMA.
TEST_F(HostTree, AnyGroupThatIsNotIdentityTranslates) {
    for (const char* type : {"DMA", "DMA-FQ", "unmanaged", "blocked"}) {
        group(0, "identity");
        group(1, type);
        std::string detail;
        EXPECT_EQ(mode(&detail), IommuMode::translating) << type;
        EXPECT_EQ(detail, std::string("2 groups; group 1 is ") + type);
    }
}

// Groups whose type cannot be read say nothing about translation: unknown, never identity.
TEST_F(HostTree, GroupsWithoutAReadableTypeAreUnknown) {
    fs::create_directories(root_ / "sys/kernel/iommu_groups/0/devices");
    fs::create_directories(root_ / "sys/kernel/iommu_groups/1");
    std::string detail;
    EXPECT_EQ(mode(&detail), IommuMode::unknown);
    EXPECT_EQ(detail, "2 groups, no readable type");
    group(1, "identity");
    EXPECT_EQ(mode(), IommuMode::identity) << "the groups whose type is read decide";
}

TEST_F(HostTree, TheHypervisorFlagOfTheFirstFlagsLine) {
    const HostRoot host(root_.string());
    EXPECT_EQ(read_hypervisor_flag(host), std::nullopt) << "no /proc/cpuinfo";
    write("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n");
    EXPECT_EQ(read_hypervisor_flag(host), std::nullopt) << "no flags line";
    write("/proc/cpuinfo",
          "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n\nprocessor\t: 1\nflags\t\t: "
          "fpu vme\n");
    EXPECT_EQ(read_hypervisor_flag(host), true);
    write("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme hypervisorx lahf_lm\n");
    EXPECT_EQ(read_hypervisor_flag(host), false) << "a whole word, not a prefix";
}

TEST_F(HostTree, ThePeerMemoryModuleByItsSysfsTrace) {
    const HostRoot host(root_.string());
    EXPECT_EQ(read_peer_memory_module(host), std::nullopt) << "no /sys/module: not read";
    fs::create_directories(root_ / "sys/module/nvidia");
    EXPECT_EQ(read_peer_memory_module(host), "") << "modules listed, none of the two";
    write("/sys/kernel/mm/memory_peers/nv_mem/version", "1.3-0\n");
    EXPECT_EQ(read_peer_memory_module(host), "nv_peer_mem");
    fs::create_directories(root_ / "sys/module/nvidia_peermem");
    EXPECT_EQ(read_peer_memory_module(host), "nvidia_peermem");
}

TEST_F(HostTree, TheFactsTrimWhatTheKernelPrints) {
    group(0, "DMA-FQ");
    write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=on\n");
    write("/proc/sys/kernel/random/boot_id", "0d3b1b52-8d5a-4c1e-9b0e-6f1c2d3e4f50\n");
    const auto facts = read_host_facts(HostRoot(root_.string()));
    EXPECT_EQ(facts.iommu, IommuMode::translating);
    EXPECT_EQ(facts.kernel_cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=on");
    EXPECT_EQ(facts.boot_id, "0d3b1b52-8d5a-4c1e-9b0e-6f1c2d3e4f50");
    EXPECT_EQ(facts.hypervisor, std::nullopt);
}

TEST(HostFactsFixture, BareMetalWithATranslatingGroup) {
    const auto facts = read_host_facts(HostRoot(test::fixture_path("host", "bare-metal-dma")));
    EXPECT_EQ(facts.iommu, IommuMode::translating);
    EXPECT_EQ(facts.hypervisor, false);
    const auto guest = read_host_facts(HostRoot(test::fixture_path("host", "vm-dma")));
    EXPECT_EQ(guest.hypervisor, true);
}

}  // namespace
}  // namespace peergate::sources::host
