// SPDX-License-Identifier: Apache-2.0
// The built-in machine files and the machine file reader: every built-in parses, survives
// a write/read round trip, and bad files are refused with the field named.
#include "snapshot/machine_file.hpp"

#include "snapshot/derived.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/sim_machines.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace peergate::sim {
namespace {

using test::builtin_machine_names;
using test::load_builtin_machine;

TEST(BuiltinMachines, TheDirectoryHoldsExactlyTheDocumentedSix) {
    std::vector<std::string> found;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PEERGATE_SOURCE_DIR) + "/machines")) {
        found.push_back(entry.path().stem().string());
    }
    std::sort(found.begin(), found.end());
    EXPECT_EQ(found, builtin_machine_names());
}

TEST(BuiltinMachines, EachParsesWithItsOwnNameAndADescription) {
    for (const auto& name : builtin_machine_names()) {
        SCOPED_TRACE(name);
        const auto m = load_builtin_machine(name);
        EXPECT_EQ(m.name, name);
        EXPECT_GT(m.description.size(), 100U);
        EXPECT_EQ(m.matrix.size(), m.gpus.size());
        for (const auto& gpu : m.gpus) {
            EXPECT_NE(gpu.pci_device_id, 0);
            EXPECT_GT(gpu.memory_bytes, 0U);
            EXPECT_TRUE(gpu.uuid.starts_with("GPU-"));
        }
    }
}

TEST(BuiltinMachines, RoundTripThroughTheWriterIsLossless) {
    for (const auto& name : builtin_machine_names()) {
        SCOPED_TRACE(name);
        const auto m = load_builtin_machine(name);
        auto again = snapshot::parse_machine(snapshot::to_json_text(m));
        ASSERT_TRUE(again.has_value()) << again.error().message;
        EXPECT_EQ(*again, m);
    }
}

TEST(BuiltinMachines, Dgx1IsTheHybridCubeMeshWithSixLinksPerGpu) {
    const auto m = load_builtin_machine("dgx1-v100");
    const auto topology = snapshot::machine_topology(m);
    for (std::size_t p = 0; p < m.gpus.size(); ++p) {
        int links = 0;
        for (std::size_t q = 0; q < m.gpus.size(); ++q) {
            links += topology.matrix[p][q].nvlinks;
        }
        EXPECT_EQ(links, 6) << "GPU" << p;
        EXPECT_EQ(snapshot::gpu_nvlinks(m, p).size(), 6U);
    }
    EXPECT_EQ(topology.label(0, 3)->to_token(), "NV2");
    EXPECT_EQ(topology.label(0, 1)->to_token(), "NV1");
    EXPECT_EQ(topology.label(0, 5)->to_token(), "SYS");
    EXPECT_EQ(topology.nvlink_islands().size(), 1U);
}

TEST(BuiltinMachines, BridgedA100HasTwoIslands) {
    const auto topology = snapshot::machine_topology(load_builtin_machine("bridged-a100-4x"));
    EXPECT_EQ(topology.nvlink_islands(), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
    EXPECT_EQ(topology.label(1, 2)->to_token(), "SYS");
}

TEST(BuiltinMachines, SilentDropHostDropsUnderLoadOnly) {
    const auto m = load_builtin_machine("pcie-rtx6000ada-2x-iommu");
    const auto drops = snapshot::faults_for(m, "copy");
    ASSERT_EQ(drops.size(), 1U);
    EXPECT_EQ(drops[0].effect, "drop");
    EXPECT_EQ(drops[0].min_inflight, 2);
    EXPECT_EQ(m.host.iommu, "translating");
    EXPECT_EQ(m.host.iommu_group_type, "DMA-FQ");
    EXPECT_NE(m.host.kernel_cmdline.find("intel_iommu=on"), std::string::npos);
    EXPECT_NE(m.host.kernel_log.find("DMAR: [DMA Write NO_PASID]"), std::string::npos);
    EXPECT_EQ(snapshot::p2p_status_token(m, snapshot::P2pCaps::read, 0, 1), "OK");
    EXPECT_EQ(snapshot::cuda_can_access_peer(m, 0, 1), 1);
}

TEST(MachineFileParser, AnIntermittentCopyFaultKeepsItsCountThroughTheWriter) {
    auto m = snapshot::load_machine(std::string(PEERGATE_TEST_FIXTURES) +
                                    "/machines/probe-drop-intermittent-2x.json");
    ASSERT_TRUE(m.has_value()) << m.error().message;
    const auto drops = snapshot::faults_for(*m, "copy");
    ASSERT_EQ(drops.size(), 1U);
    EXPECT_EQ(drops[0].after_copies, 10);
    EXPECT_EQ(drops[0].min_inflight, 0);
    auto back = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(back.has_value()) << back.error().message;
    EXPECT_EQ(*back, *m);
}

// The SM paths' faults (docs/machine-file.md): each fixture's fault reads back through the
// writer as it was.
TEST(MachineFileParser, ThePeerPathFaultsRoundTrip) {
    for (const char* name : {"probe-sm-store-drop-2x",
                             "probe-sm-load-mirror-2x",
                             "probe-flag-lost-2x",
                             "probe-flag-early-2x"}) {
        auto m = snapshot::load_machine(std::string(PEERGATE_TEST_FIXTURES) + "/machines/" + name +
                                        ".json");
        ASSERT_TRUE(m.has_value()) << name << ": " << m.error().message;
        ASSERT_EQ(m->faults.size(), 1U);
        EXPECT_TRUE(m->faults[0].layer == "sm" || m->faults[0].layer == "flag");
        auto back = snapshot::parse_machine(snapshot::to_json_text(*m));
        ASSERT_TRUE(back.has_value()) << back.error().message;
        EXPECT_EQ(*back, *m);
    }
}

struct BadCase {
    std::string name;
    std::string json;
    std::string names_field;
};

// A machine file of 10k GPUs took 11 GB before it was refused (issue 34): the counts are
// checked before anything is built from them.
TEST(MachineFileParser, RefusesMoreGpusThanPeergateReads) {
    std::string gpus;
    for (int i = 0; i < 513; ++i) {
        gpus += fmt::format("{}{{\"pci_bus_id\": \"0000{:04X}:00:00.0\"}}", i ? ", " : "", i);
    }
    const auto parsed =
        snapshot::parse_machine(R"({"schema": "peergate.machine/v1", "gpus": [)" + gpus + "]}");
    ASSERT_FALSE(parsed.has_value());
    EXPECT_EQ(parsed.error().message,
              "machine file: gpus: 513 entries, more than the 512 peergate reads");
}

TEST(MachineFileParser, RefusesBadFilesNamingTheField) {
    const std::string gpu = R"({"pci_bus_id": "00000000:1B:00.0"})";
    const std::string two = "[" + gpu + R"(, {"pci_bus_id": "00000000:43:00.0"}])";
    const std::string ok_matrix = R"([["X", "NV18"], ["NV18", "X"]])";
    const std::vector<BadCase> cases{
        {"no schema", R"({"gpus": []})", "schema"},
        {"not json", "{", "machine file"},
        {"no gpus", R"({"schema": "peergate.machine/v1", "gpus": []})", "gpus"},
        {"bad bus id",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "zz"}], "matrix": [["X"]]})",
         "gpus[0].pci_bus_id"},
        {"short matrix",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": [["X"]]})",
         "matrix"},
        {"bad token",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two +
             R"(, "matrix": [["X", "NVX"], ["NV1", "X"]]})",
         "matrix[0]"},
        {"asymmetric",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two +
             R"(, "matrix": [["X", "NV2"], ["NV1", "X"]]})",
         "matrix"},
        {"bad status",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": )" + ok_matrix +
             R"(, "nvml_p2p": {"read": [["X", "YES"], ["OK", "X"]]}})",
         "nvml_p2p.read[0]"},
        {"an sm fault's effect is a flag's",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": )" + ok_matrix +
             R"(, "faults": [{"layer": "sm", "effect": "lost"}]})",
         "faults[0].effect"},
        {"a flag fault's effect is a copy's",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": )" + ok_matrix +
             R"(, "faults": [{"layer": "flag", "effect": "drop"}]})",
         "faults[0].effect"},
        {"bad fault layer",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": )" + ok_matrix +
             R"(, "faults": [{"layer": "disk", "effect": "fail"}]})",
         "faults[0].layer"},
        {"bad fraction",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": )" + ok_matrix +
             R"(, "faults": [{"layer": "copy", "effect": "drop", "fraction": 2}]})",
         "faults[0].fraction"},
        {"a fraction the simulator cannot count",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": )" + ok_matrix +
             R"(, "faults": [{"layer": "copy", "effect": "drop", "fraction": 1e-7}]})",
         "faults[0].fraction must be in [0.000001, 1]"},
        {"an affinity past any host's CPUs",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "00000000:1B:00.0", "cpu_affinity": "0-100000000"}]})",
         "gpus[0].cpu_affinity: CPU 100000000 is past the largest a host has (16383)"},
        {"a CPU past any host's",
         R"({"schema": "peergate.machine/v1", "host": {"cpus": [[70000, 0, 0]]}, "gpus": )" + two +
             "}",
         "host.cpus: CPU 70000 is past the largest"},
        {"a name longer than any",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "00000000:1B:00.0", "name": ")" +
             std::string(5000, 'A') + R"("}]})",
         "gpus[0].name: a string of 5000 bytes, longer than 4096"},
        {"negative after_copies",
         R"({"schema": "peergate.machine/v1", "gpus": )" + two + R"(, "matrix": )" + ok_matrix +
             R"(, "faults": [{"layer": "copy", "effect": "drop", "after_copies": -1}]})",
         "faults[0].after_copies"},
        {"numa as text",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "00000000:1B:00.0", "numa_node": "0"}]})",
         "gpus[0].numa_node: expected a 32-bit integer or null, got string"},
        {"host not an object",
         R"({"schema": "peergate.machine/v1", "host": 3, "gpus": )" + two + "}",
         "host: expected an object"},
        {"fault code as text",
         R"({"schema": "peergate.machine/v1", "faults": [{"layer": "smi", "code": "9"}], "gpus": )" +
             two + "}",
         "faults[0].code: expected a 32-bit integer"},
        {"can-access cell",
         R"({"schema": "peergate.machine/v1", "cuda_can_access_peer": [[0, "1"]], "gpus": )" + two +
             "}",
         "cuda_can_access_peer[0][1]: expected a 32-bit integer"},
        {"nvlink active",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "00000000:1B:00.0", "nvlinks": [{"active": 1}]}]})",
         "gpus[0].nvlinks[0].active: expected true or false"},
        {"negative memory",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "00000000:1B:00.0", "memory_bytes": -1}]})",
         "gpus[0].memory_bytes"},
        {"cpus not triples",
         R"({"schema": "peergate.machine/v1", "host": {"cpus": [[0, 0, 0], [1, 0]]}, "gpus": )" +
             two + "}",
         "host.cpus[1] must be [cpu, package, core_id]"},
        {"negative core",
         R"({"schema": "peergate.machine/v1", "host": {"cpus": [[0, 0, -1]]}, "gpus": )" + two +
             "}",
         "host.cpus[0]"},
        {"core as text",
         R"({"schema": "peergate.machine/v1", "host": {"cpus": [[0, 0, "1"]]}, "gpus": )" + two +
             "}",
         "host.cpus[0][2]: expected a 32-bit integer"},
        {"schema not a string",
         R"({"schema": {"name": "x"}, "gpus": )" + two + "}",
         "\"schema\" must be \"peergate.machine/v1\""},
        {"index past int",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "00000000:1B:00.0", "index": 4294967296}]})",
         "gpus[0].index: expected a 32-bit integer, got 4294967296"},
        {"unknown peer-memory module",
         R"({"schema": "peergate.machine/v1", "host": {"peer_memory_module": "gdrcopy"}, "gpus": )" +
             two + R"(, "matrix": )" + ok_matrix + "}",
         "host.peer_memory_module: expected \"nvidia_peermem\", \"nv_peer_mem\" or nothing, got "
         "\"gdrcopy\""},
        {"unknown kernel module flavour",
         R"({"schema": "peergate.machine/v1", "host": {"kernel_module": "nouveau"}, "gpus": )" +
             two + R"(, "matrix": )" + ok_matrix + "}",
         "host.kernel_module: expected \"open\", \"proprietary\" or nothing, got \"nouveau\""},
        {"dma_buf not a boolean",
         R"({"schema": "peergate.machine/v1", "gpus": [{"pci_bus_id": "00000000:1B:00.0", )"
         R"("cuda_dma_buf": 1}]})",
         "gpus[0].cuda_dma_buf"},
        {"bad nvswitch",
         R"({"schema": "peergate.machine/v1", "nvswitch_pci": ["x"], "gpus": )" + two +
             R"(, "matrix": )" + ok_matrix + "}",
         "nvswitch_pci[0]"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto parsed = snapshot::parse_machine(c.json);
        ASSERT_FALSE(parsed.has_value());
        EXPECT_NE(parsed.error().message.find(c.names_field), std::string::npos)
            << parsed.error().message;
    }
}

TEST(MachineFileParser, LoadNamesThePathOfAMissingFile) {
    auto parsed = snapshot::load_machine("/nonexistent/machine.json");
    ASSERT_FALSE(parsed.has_value());
    EXPECT_NE(parsed.error().message.find("/nonexistent/machine.json"), std::string::npos);
}

}  // namespace
}  // namespace peergate::sim
