// SPDX-License-Identifier: Apache-2.0
// peergate gather records a machine that --simulate replays to the same topology.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace peergate {
namespace {

using nlohmann::json;
using test::fixture_machine;
using test::peergate_in;
using test::ScratchDir;

// The fixture machine `name` and what gather records of its simulated host, both read back:
// {recorded, original}. The test fails where gather or a read does.
std::pair<snapshot::MachineFile, snapshot::MachineFile> gather_fixture(const ScratchDir& scratch,
                                                                       const std::string& name) {
    const std::string out = scratch.file("g.json");
    const std::string machine = fixture_machine(name);
    const auto gathered = peergate_in(scratch, {"--simulate", machine, "gather", "-o", out});
    EXPECT_EQ(gathered.exit_code, 0) << gathered.err;
    auto recorded = snapshot::load_machine(out);
    auto original = snapshot::load_machine(machine);
    EXPECT_TRUE(recorded && original);
    return {recorded ? std::move(*recorded) : snapshot::MachineFile{},
            original ? std::move(*original) : snapshot::MachineFile{}};
}

// What gather records of the built-in machine `name`, read back from scratch's g.json.
util::Expected<snapshot::MachineFile> gather_builtin(const ScratchDir& scratch,
                                                     const std::string& name) {
    const std::string out = scratch.file("g.json");
    const auto gathered = peergate_in(scratch, {"--simulate", name, "gather", "-o", out});
    EXPECT_EQ(gathered.exit_code, 0) << gathered.err;
    return snapshot::load_machine(out);
}

json topo_json(const ScratchDir& scratch, const std::string& machine) {
    return json::parse(
        peergate_in(scratch, {"--simulate", machine, "topo", "--source", "smi", "--json"}).out,
        nullptr,
        false);
}

TEST(Gather, ReplayingTheRecordGivesTheSameTopology) {
    for (const std::string name : {"dgx1-v100", "pcie-rtx6000ada-2x-iommu", "hgx-b200-8x"}) {
        SCOPED_TRACE(name);
        const ScratchDir scratch;
        const std::string out = scratch.file("gathered.json");
        const auto gathered = peergate_in(scratch, {"--simulate", name, "gather", "--output", out});
        ASSERT_EQ(gathered.exit_code, 0) << gathered.err;
        const auto original = topo_json(scratch, name);
        const auto replayed = topo_json(scratch, out);
        EXPECT_EQ(replayed["matrix"], original["matrix"]);
        EXPECT_EQ(replayed["nvlink_islands"], original["nvlink_islands"]);
        EXPECT_EQ(replayed["gpus"], original["gpus"]);
    }
}

TEST(Gather, RecordsTextsHostFactsAndGpuDetails) {
    const ScratchDir scratch;
    const std::string out = scratch.file("g.json");
    ASSERT_EQ(
        peergate_in(
            scratch,
            {"--simulate", "pcie-rtx6000ada-2x-iommu", "gather", "-o", out, "--name", "bug-42"})
            .exit_code,
        0);
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    const auto original = test::load_builtin_machine("pcie-rtx6000ada-2x-iommu");
    EXPECT_EQ(recorded->name, "bug-42");
    EXPECT_NE(recorded->recorded_topo_m.find("GPU0\t X \tNODE"), std::string::npos);
    EXPECT_FALSE(recorded->recorded_query_gpu.empty());
    EXPECT_EQ(recorded->host.iommu, "translating");
    EXPECT_EQ(recorded->host.iommu_group_type, "DMA-FQ");
    EXPECT_EQ(recorded->host.kernel_cmdline, original.host.kernel_cmdline);
    EXPECT_EQ(recorded->host.boot_id, original.host.boot_id);
    EXPECT_EQ(recorded->host.kernel_module, "open");
    EXPECT_EQ(recorded->host.kernel_release, "6.8.0-48-generic");
    EXPECT_EQ(recorded->driver_version, original.driver_version);
    ASSERT_EQ(recorded->gpus.size(), 2U);
    EXPECT_EQ(recorded->gpus[1].pci_device_id, 0x26b1);
    EXPECT_EQ(recorded->gpus[1].memory_bytes, original.gpus[1].memory_bytes);
    EXPECT_EQ(recorded->gpus[1].cc_minor, 9);
    EXPECT_TRUE(recorded->faults.empty()) << "a real host has no injected faults";
}

// The CUDA driver's own answers: a replay says what the host's cuDeviceCanAccessPeer said.
TEST(Gather, RecordsTheCudaDriverVersionAndItsPeerAnswers) {
    const ScratchDir scratch;
    const auto [recorded, original] = gather_fixture(scratch, "probe-no-peer-2x");
    EXPECT_EQ(recorded.cuda_driver_version, original.cuda_driver_version);
    EXPECT_EQ(recorded.cuda_can_access_peer, original.cuda_can_access_peer);
    for (const auto& gpu : recorded.gpus) {
        EXPECT_EQ(gpu.cuda_dma_buf, std::nullopt) << "no kernel module recorded: no answer";
    }
}

// DMA-BUF support as the driver answered it per GPU: the replay answers the same even where
// it differs from what the module's flavour would give (a GeForce answers 0 on the open one).
TEST(Gather, RecordsEachGpusDmaBufAnswer) {
    const ScratchDir scratch;
    auto machine = test::load_builtin_machine("pcie-rtx6000ada-2x-iommu");
    machine.gpus[1].cuda_dma_buf = false;
    const std::string file = scratch.write("dmabuf.json", snapshot::to_json_text(machine));
    const std::string out = scratch.file("g.json");
    ASSERT_EQ(peergate_in(scratch, {"--simulate", file, "gather", "-o", out}).exit_code, 0);
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value());
    ASSERT_EQ(recorded->gpus.size(), 2U);
    EXPECT_EQ(recorded->gpus[0].cuda_dma_buf, true);
    EXPECT_EQ(recorded->gpus[1].cuda_dma_buf, false);
}

TEST(Gather, RecordsThePortsAboveEachGpuWithTheirAcs) {
    const ScratchDir scratch;
    const auto [recorded, original] = gather_fixture(scratch, "acs-redirect-4x");
    ASSERT_EQ(recorded.gpus.size(), original.gpus.size());
    for (std::size_t p = 0; p < original.gpus.size(); ++p) {
        EXPECT_EQ(recorded.gpus[p].upstream_ports, original.gpus[p].upstream_ports) << p;
    }
}

TEST(Gather, RecordsEachNicWithTheKernelsNamesForIt) {
    const ScratchDir scratch;
    const auto [recorded, original] = gather_fixture(scratch, "gdr-acs-4x");
    EXPECT_EQ(recorded.nics, original.nics);
    ASSERT_EQ(recorded.nics.size(), 2U);
    EXPECT_EQ(recorded.nics[1].rdma_devices, std::vector<std::string>{"mlx5_1"});
    EXPECT_EQ(recorded.nics[1].interfaces, std::vector<std::string>{"ibp133s0"});
}

// hgx-b200-8x's dual-port ConnectX-7 (ac:00.0 and .1 in its file) is recorded as the one NIC
// the reader makes of it, with both ports' names, and replays as the same NIC.
TEST(Gather, RecordsADualPortCardAsOneNicWithBothPorts) {
    const ScratchDir scratch;
    const auto recorded = gather_builtin(scratch, "hgx-b200-8x");
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    ASSERT_EQ(recorded->nics.size(), 1U);
    EXPECT_EQ(recorded->nics[0].pci.to_sysfs(), "0000:ac:00.0");
    EXPECT_EQ(recorded->nics[0].rdma_devices, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
    const auto replayed = json::parse(
        peergate_in(scratch, {"--simulate", scratch.file("g.json"), "topo", "--json"}).out,
        nullptr,
        false);
    const auto original = json::parse(
        peergate_in(scratch, {"--simulate", "hgx-b200-8x", "topo", "--json"}).out, nullptr, false);
    EXPECT_EQ(replayed["nics"], original["nics"]);
}

TEST(Gather, RecordsTheCpuTopologyForSlurmsCores) {
    const ScratchDir scratch;
    const std::string out = scratch.file("g.json");
    ASSERT_EQ(peergate_in(scratch, {"--simulate", "dgx1-v100", "gather", "-o", out}).exit_code, 0);
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    EXPECT_EQ(recorded->host.cpus, test::load_builtin_machine("dgx1-v100").host.cpus);
    const auto gres = peergate_in(scratch, {"--simulate", out, "export", "gres"});
    EXPECT_NE(gres.out.find(" Cores=20-39 Links=0,0,0,1,2,1,2,-1\n"), std::string::npos)
        << gres.out;
}

// One GPU: topo -m has no matrix, so NUMA node and CPU list come from NVML, and the text
// is still recorded verbatim for the replay.
TEST(Gather, OneGpuKeepsItsAffinityAndTheUnparsedTopoText) {
    const ScratchDir scratch;
    const auto recorded = gather_builtin(scratch, "single-h200");
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    const auto original = test::load_builtin_machine("single-h200");
    ASSERT_EQ(recorded->gpus.size(), 1U);
    EXPECT_EQ(recorded->gpus[0].numa_node, original.gpus[0].numa_node);
    EXPECT_EQ(recorded->gpus[0].cpu_affinity, original.gpus[0].cpu_affinity);
    EXPECT_FALSE(recorded->gpus[0].cpu_affinity.empty());
    EXPECT_NE(recorded->recorded_topo_m.find("GPU NUMA ID"), std::string::npos);
    EXPECT_EQ(recorded->cuda_can_access_peer, (std::vector<std::vector<int>>{{0}}));
}

TEST(Gather, WithoutAnyNvidiaToolFailsAndWritesNothing) {
    const ScratchDir scratch;
    const std::string out = scratch.file("none.json");
    const auto result = peergate_in(scratch,
                                    {"--nvidia-smi",
                                     "/nonexistent/nvidia-smi",
                                     "--nvml-lib",
                                     "/nonexistent/libnvidia-ml.so.1",
                                     "gather",
                                     "--output",
                                     out});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("no NVIDIA tool listed the GPUs"), std::string::npos) << result.err;
    EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(Gather, OutputIsRequired) {
    const ScratchDir scratch;
    const auto result = peergate_in(scratch, {"gather"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--output"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace peergate
