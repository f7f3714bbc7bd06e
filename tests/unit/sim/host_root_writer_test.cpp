// SPDX-License-Identifier: Apache-2.0
// The materialised host root is read back by the real host reader to the machine's facts.
#include "sim/machine/host_root_writer.hpp"

#include "pipeline/simulate.hpp"
#include "sources/host/cpu_cores.hpp"
#include "sources/host/host_facts_reader.hpp"
#include "sources/host/nvidia_version.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <thread>

namespace peergate::sim {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;

model::IommuMode expected_mode(const std::string& iommu) {
    if (iommu == "translating") {
        return model::IommuMode::translating;
    }
    return iommu == "identity" ? model::IommuMode::identity : model::IommuMode::off;
}

TEST(HostRootWriter, TheHostReaderReadsEveryBuiltinBack) {
    for (const auto& name : test::builtin_machine_names()) {
        SCOPED_TRACE(name);
        const ScratchDir scratch;
        const auto machine = test::load_builtin_machine(name);
        ASSERT_TRUE(write_host_root(machine, scratch.file("root")).has_value());
        const auto facts =
            sources::host::read_host_facts(sources::host::HostRoot(scratch.file("root")));
        EXPECT_EQ(facts.iommu, expected_mode(machine.host.iommu)) << facts.iommu_detail;
        EXPECT_EQ(facts.hypervisor, std::optional<bool>(false));
        EXPECT_EQ(facts.kernel_cmdline, machine.host.kernel_cmdline);
        EXPECT_EQ(facts.boot_id, machine.host.boot_id);
    }
}

// bridged-a100-4x as `change` leaves it, written under the scratch directory.
template <typename Change>
sources::host::HostRoot bridged_root(const ScratchDir& scratch, Change change) {
    auto machine = test::load_builtin_machine("bridged-a100-4x");
    change(machine);
    EXPECT_TRUE(write_host_root(machine, scratch.file("root")).has_value());
    return sources::host::HostRoot(scratch.file("root"));
}

// The peer-memory module where NCCL looks for it; none loaded reads as "", a root without
// /sys/module as unknown.
TEST(HostRootWriter, PeerMemoryModuleReadsBack) {
    for (const std::string module : {"", "nvidia_peermem", "nv_peer_mem"}) {
        SCOPED_TRACE(module);
        const ScratchDir scratch;
        const auto root = bridged_root(
            scratch, [&](snapshot::MachineFile& m) { m.host.peer_memory_module = module; });
        EXPECT_EQ(sources::host::read_peer_memory_module(root), std::optional<std::string>(module));
    }
    const ScratchDir empty;
    EXPECT_FALSE(sources::host::read_peer_memory_module(sources::host::HostRoot(empty.path())));
}

// The running module as /proc/driver/nvidia/version prints it for each flavour, with the
// file's driver version, and the kernel's release; neither where the file records none.
TEST(HostRootWriter, KernelModuleAndReleaseReadBack) {
    for (const std::string flavour : {"open", "proprietary"}) {
        SCOPED_TRACE(flavour);
        const ScratchDir scratch;
        const auto root = bridged_root(
            scratch, [&](snapshot::MachineFile& m) { m.host.kernel_module = flavour; });
        const auto module = sources::host::read_nvidia_module(root);
        ASSERT_TRUE(module.has_value());
        EXPECT_EQ(model::to_string(module->flavour), flavour);
        EXPECT_EQ(module->version, "550.127.05");
        EXPECT_EQ(sources::host::read_kernel_release(root), "5.15.0-125-generic");
    }
    const ScratchDir scratch;
    const auto root = bridged_root(scratch, [](snapshot::MachineFile& m) {
        m.host.kernel_module = "";
        m.host.kernel_release = "";
    });
    EXPECT_EQ(sources::host::read_nvidia_module(root), std::nullopt);
    EXPECT_EQ(sources::host::read_kernel_release(root), "");
}

TEST(HostRootWriter, CpuTopologyIsLaidOutAsSysfsHasIt) {
    const ScratchDir scratch;
    const auto machine = test::load_builtin_machine("dgx1-v100");
    ASSERT_EQ(machine.host.cpus.size(), 80U);
    ASSERT_TRUE(write_host_root(machine, scratch.file("root")).has_value());
    const sources::host::HostRoot root(scratch.file("root"));
    const auto places = sources::host::cpu_places(root);
    ASSERT_EQ(places.size(), 80U);
    EXPECT_EQ(places[45], (sources::host::CpuPlace{.cpu = 45, .package = 0, .core = 8}));
    const auto cores = sources::host::logical_cores(root);
    EXPECT_EQ(cores.at(45), 5);  // the sibling of CPU 5
    EXPECT_EQ(cores.at(79), 39);
    const ScratchDir bare;  // a machine without host.cpus has no CPU topology
    ASSERT_TRUE(
        write_host_root(test::load_builtin_machine("hgx-b200-8x"), bare.file("root")).has_value());
    EXPECT_TRUE(sources::host::cpu_places(sources::host::HostRoot(bare.file("root"))).empty());
}

TEST(HostRootWriter, HypervisorFlagAndTranslatingGroupType) {
    const ScratchDir scratch;
    auto machine = test::load_builtin_machine("bridged-a100-4x");
    machine.host.hypervisor = true;
    machine.host.iommu = "translating";
    machine.host.iommu_group_type = "DMA";
    ASSERT_TRUE(write_host_root(machine, scratch.path() + "/root").has_value());
    const sources::host::HostRoot root(scratch.path() + "/root");
    const auto facts = sources::host::read_host_facts(root);
    EXPECT_EQ(facts.hypervisor, std::optional<bool>(true));
    EXPECT_EQ(facts.iommu, model::IommuMode::translating);
    EXPECT_NE(facts.iommu_detail.find("DMA"), std::string::npos);
}

TEST(HostRootWriter, PciDevicesAreSymlinksAndIommuGroupsResolveInsideTheRoot) {
    const ScratchDir scratch;
    const auto machine = test::load_builtin_machine("pcie-rtx6000ada-2x-iommu");
    const std::string root = scratch.file("root");
    ASSERT_TRUE(write_host_root(machine, root).has_value());
    const std::string dev = root + "/sys/bus/pci/devices/0000:41:00.0";
    EXPECT_TRUE(fs::is_symlink(dev));
    EXPECT_EQ(fs::read_symlink(dev).string(), "../../../devices/pci0000:41/0000:41:00.0");
    EXPECT_EQ(fs::read_symlink(dev + "/iommu_group").string(), "../../../kernel/iommu_groups/2");
    EXPECT_EQ(fs::canonical(dev + "/iommu_group"),
              fs::canonical(root + "/sys/kernel/iommu_groups/2"));
    EXPECT_EQ(*util::read_file(dev + "/iommu_group/type"), "DMA-FQ\n");
    EXPECT_EQ(*util::read_file(dev + "/class"), "0x030000\n");
    EXPECT_EQ(*util::read_file(dev + "/vendor"), "0x10de\n");
    EXPECT_EQ(*util::read_file(dev + "/device"), "0x26b1\n");
    EXPECT_EQ(*util::read_file(dev + "/numa_node"), "0\n");
    auto log = util::read_file(root + kSimKernelLogPath);
    ASSERT_TRUE(log.has_value());
    EXPECT_NE(log->find("DMAR: [DMA Write NO_PASID] Request device [41:00.0]"), std::string::npos);
}

TEST(HostRootWriter, NoIommuMeansNoGroupsAndNvswitchesAreBridges) {
    const ScratchDir scratch;
    auto machine = test::load_builtin_machine("hgx-b200-8x");
    machine.host.iommu = "off";
    ASSERT_TRUE(write_host_root(machine, scratch.file("root")).has_value());
    EXPECT_FALSE(fs::exists(scratch.file("root/sys/kernel/iommu_groups")));
    EXPECT_FALSE(fs::exists(scratch.file("root/sys/bus/pci/devices/0000:1b:00.0/iommu_group")));
    EXPECT_EQ(*util::read_file(scratch.file("root/sys/bus/pci/devices/0000:c0:00.0/class")),
              "0x068000\n");
    EXPECT_EQ(*util::read_file(scratch.file("root/sys/bus/pci/devices/0000:1b:00.0/class")),
              "0x030200\n");
    // GPU5 sits on bus C3: the synthetic switches step over it.
    EXPECT_EQ(*util::read_file(scratch.file("root/sys/bus/pci/devices/0000:c3:00.0/class")),
              "0x030200\n");
    EXPECT_EQ(*util::read_file(scratch.file("root/sys/bus/pci/devices/0000:c4:00.0/class")),
              "0x068000\n");
}

TEST(HostRootWriter, NumaNodesGetTheirGpusCpusAsTheKernelsMask) {
    const ScratchDir scratch;
    auto machine = test::load_builtin_machine("dgx1-v100");  // 0-19,40-59 and 20-39,60-79
    ASSERT_TRUE(write_host_root(machine, scratch.file("root")).has_value());
    const std::string node = scratch.file("root/sys/devices/system/node/node");
    EXPECT_EQ(util::read_file(node + "0/cpumap").value_or(""), "0fffff00,000fffff\n");
    EXPECT_EQ(util::read_file(node + "1/cpumap").value_or(""), "0000ffff,f00000ff,fff00000\n");
    machine.gpus[7].cpu_affinity = "20-39";  // node 1's GPUs disagree: no mask for it
    const ScratchDir other;
    ASSERT_TRUE(write_host_root(machine, other.file("root")).has_value());
    EXPECT_TRUE(fs::exists(other.file("root/sys/devices/system/node/node0/cpumap")));
    EXPECT_FALSE(fs::exists(other.file("root/sys/devices/system/node/node1/cpumap")));
}

TEST(MaterialiseHostRoot, ReusesTheTreeAndIsSafeUnderConcurrentRuns) {
    const ScratchDir scratch;
    util::EnvMap env;
    env.set("TMPDIR", scratch.path());
    const std::string path = test::builtin_machine_path("pcie-rtx6000ada-2x-iommu");
    const auto text = *util::read_file(path);
    const auto machine = *snapshot::parse_machine(text);
    std::vector<std::string> roots(8);
    std::vector<std::thread> threads;
    for (auto& root : roots) {
        threads.emplace_back([&] {
            auto made = pipeline::materialise_host_root(text, machine, env);
            root = made ? *made : made.error().message;
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    EXPECT_EQ(std::set<std::string>(roots.begin(), roots.end()).size(), 1U) << roots[0];
    EXPECT_TRUE(roots[0].starts_with(scratch.path() + "/peergate-sim-"));
    const auto facts = sources::host::read_host_facts(sources::host::HostRoot(roots[0]));
    EXPECT_EQ(facts.iommu, model::IommuMode::translating);
    // Only the published tree is left: no temporary siblings.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry :
         fs::directory_iterator(fs::path(roots[0]).parent_path())) {
        ++entries;
    }
    EXPECT_EQ(entries, 1U);
    auto again = pipeline::materialise_host_root(text, machine, env);
    EXPECT_EQ(*again, roots[0]);
    auto other = pipeline::materialise_host_root(text + " ", machine, env);
    EXPECT_NE(*other, roots[0]) << "different content, different tree";
}

}  // namespace
}  // namespace peergate::sim
