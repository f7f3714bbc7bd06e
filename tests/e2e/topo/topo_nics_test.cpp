// SPDX-License-Identifier: Apache-2.0
// topo's NIC rows end to end: a simulated host with a ConnectX below each PCIe switch
// (gdr-acs-4x) shows each NIC's class of path to each GPU, its names and each GPU's nearest
// NIC, worked out from the simulated sysfs as on a live host; a saved file has no sysfs.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

using Json = nlohmann::ordered_json;
using test::ScratchDir;

TEST(TopoNics, JsonGivesEachNicsPathToEachGpuAndEachGpusNearestNic) {
    const auto run = run_peergate({"--simulate", fixture_machine("gdr-acs-4x"), "topo", "--json"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    ASSERT_EQ(doc["nics"].size(), 2U) << doc.dump(2);
    EXPECT_EQ(doc["nics"][0], Json::parse(R"({"nic": "NIC0", "pci_bus_id": "0000:07:00.0",
        "numa_node": 0, "rdma_devices": ["mlx5_0"], "interfaces": ["ibp7s0"],
        "physical_function": null, "paths": ["PIX", "PIX", "SYS", "SYS"]})"));
    EXPECT_EQ(doc["nics"][1]["paths"], Json::parse(R"(["SYS", "SYS", "PIX", "PIX"])"));
    EXPECT_EQ(doc["nearest_nics"][0],
              Json::parse(R"({"gpu": 0, "nics": ["NIC0"], "path": "PIX"})"));
    EXPECT_EQ(doc["nearest_nics"][3],
              Json::parse(R"({"gpu": 3, "nics": ["NIC1"], "path": "PIX"})"));
}

TEST(TopoNics, TextAddsTheNicTableAndTheNearestNicLine) {
    const auto run = run_peergate({"--simulate", fixture_machine("gdr-acs-4x"), "topo"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto& out = run.process.out;
    for (const char* line : {"      GPU0  GPU1  GPU2  GPU3  NUMA  Names\n",
                             "NIC0  PIX   PIX   SYS   SYS   0     mlx5_0 ibp7s0 0000:07:00.0\n",
                             "NIC1  SYS   SYS   PIX   PIX   1     mlx5_1 ibp133s0 0000:85:00.0\n",
                             "Nearest NIC: GPU0 mlx5_0 (PIX), GPU1 mlx5_0 (PIX), GPU2 mlx5_1 "
                             "(PIX), GPU3 mlx5_1 (PIX)\n"}) {
        EXPECT_NE(out.find(line), std::string::npos) << line << "\nnot in:\n" << out;
    }
}

// A virtual function of NIC0 (SR-IOV, as Kubernetes' RDMA device plugins set up): listed in
// the JSON with its physical function, left out of the table and of the nearest NICs.
TEST(TopoNics, AnSriovVirtualFunctionIsNamedButNotARowOrANearestNic) {
    auto machine = snapshot::load_machine(fixture_machine("gdr-acs-4x"));
    ASSERT_TRUE(machine.has_value()) << machine.error().message;
    auto vf = machine->nics[0];
    vf.pci = model::PciAddress::parse("0000:07:01.0").value();
    vf.rdma_devices = {"mlx5_2"};
    vf.interfaces = {};
    vf.physfn = machine->nics[0].pci;
    machine->nics.push_back(vf);
    const ScratchDir scratch;
    const auto file = scratch.write("vf.json", snapshot::to_json_text(*machine));

    const auto doc = stdout_json(run_peergate({"--simulate", file, "topo", "--json"}));
    ASSERT_EQ(doc["nics"].size(), 3U) << doc.dump(2);
    EXPECT_EQ(doc["nics"][1]["pci_bus_id"], "0000:07:01.0");
    EXPECT_EQ(doc["nics"][1]["physical_function"], "0000:07:00.0");
    EXPECT_EQ(doc["nics"][1]["paths"][0], "PIX");
    EXPECT_EQ(doc["nearest_nics"][0]["nics"], Json::parse(R"(["NIC0"])"));

    const auto text = run_peergate({"--simulate", file, "topo"}).process.out;
    EXPECT_EQ(text.find("mlx5_2"), std::string::npos) << text;
    EXPECT_NE(text.find("(and 1 SR-IOV virtual functions, each where its physical function is)\n"),
              std::string::npos)
        << text;
}

// A dual-port card (a second physical function, 07:00.1) is one NIC with both ports' names,
// as NCCL merges them; a virtual function at another function number is listed on its own.
TEST(TopoNics, ACardsSecondPortJoinsItsNicAndEachVirtualFunctionIsListed) {
    auto machine = snapshot::load_machine(fixture_machine("gdr-acs-4x"));
    ASSERT_TRUE(machine.has_value()) << machine.error().message;
    auto port = machine->nics[0];
    port.pci = model::PciAddress::parse("0000:07:00.1").value();
    port.rdma_devices = {"mlx5_2"};
    port.interfaces = {"ibp7s0f1"};
    auto vf = machine->nics[0];
    vf.pci = model::PciAddress::parse("0000:07:00.2").value();
    vf.rdma_devices = {"mlx5_3"};
    vf.interfaces = {};
    vf.physfn = machine->nics[0].pci;
    machine->nics.insert(machine->nics.begin() + 1, {port, vf});
    const ScratchDir scratch;
    const auto file = scratch.write("dual.json", snapshot::to_json_text(*machine));

    const auto doc = stdout_json(run_peergate({"--simulate", file, "topo", "--json"}));
    ASSERT_EQ(doc["nics"].size(), 3U) << doc.dump(2);
    EXPECT_EQ(doc["nics"][0]["rdma_devices"], Json::parse(R"(["mlx5_0", "mlx5_2"])"));
    EXPECT_EQ(doc["nics"][0]["interfaces"], Json::parse(R"(["ibp7s0", "ibp7s0f1"])"));
    EXPECT_EQ(doc["nics"][1]["pci_bus_id"], "0000:07:00.2");
    EXPECT_EQ(doc["nics"][1]["physical_function"], "0000:07:00.0");
    const auto text = run_peergate({"--simulate", file, "topo"}).process.out;
    EXPECT_NE(text.find("NIC0  PIX   PIX   SYS   SYS   0     mlx5_0 mlx5_2 ibp7s0 ibp7s0f1 "
                        "0000:07:00.0\n"),
              std::string::npos)
        << text;
}

TEST(TopoNics, AHostWithoutNicsHasAnEmptyListAndNoTable) {
    const auto json = run_peergate({"--simulate", "bridged-a100-4x", "topo", "--json"});
    const auto doc = stdout_json(json);
    EXPECT_EQ(doc["nics"], Json::array());
    EXPECT_EQ(doc["nearest_nics"], Json::array());
    const auto text = run_peergate({"--simulate", "bridged-a100-4x", "topo"});
    EXPECT_EQ(text.process.out.find("NIC"), std::string::npos) << text.process.out;
}

TEST(TopoNics, ASavedFileHasNoSysfsSoTheNicsAreNull) {
    const auto run = run_peergate({"topo", "--from", fixture_machine("gdr-acs-4x"), "--json"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_TRUE(doc["nics"].is_null());
    EXPECT_TRUE(doc["nearest_nics"].is_null());
}

}  // namespace
}  // namespace peergate::test
