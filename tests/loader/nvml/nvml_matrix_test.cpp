// SPDX-License-Identifier: Apache-2.0
// The matrix tier 1 reads from the simulated NVML: NVSwitch and direct links, denials,
// UNKNOWN, the contradiction guard and the one-GPU case (docs/gate-rules.md §3 tier 1).
#include "loader/nvml/nvml_loader_support.hpp"
#include "snapshot/derived.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace peergate {
namespace {

using namespace testing_nvml;  // NOLINT(google-build-using-namespace)

std::vector<std::vector<std::string>> tokens(const model::Topology& topology) {
    std::vector<std::vector<std::string>> out;
    for (const auto& row : topology.matrix) {
        out.emplace_back();
        for (const auto& label : row) {
            out.back().push_back(label.to_token());
        }
    }
    return out;
}

std::vector<std::vector<std::string>> tokens(const snapshot::MachineFile& machine) {
    std::vector<std::vector<std::string>> out;
    for (const auto& row : machine.matrix) {
        out.emplace_back();
        for (const auto& label : row) {
            out.back().push_back(label.to_token());
        }
    }
    return out;
}

TEST(NvmlMatrix, NvswitchMachineIsNv18EverywhereWithIdentity) {
    const auto result = run_tier(fixture("nvml-nvswitch-8x"));
    ASSERT_TRUE(result.topology) << result.topology.error().message;
    const auto& topology = *result.topology;
    ASSERT_EQ(topology.size(), 8U);
    EXPECT_TRUE(topology.uniformly_nvlinked());
    for (std::size_t p = 0; p < 8; ++p) {
        for (std::size_t q = 0; q < 8; ++q) {
            EXPECT_EQ(topology.matrix[p][q].to_token(), p == q ? "X" : "NV18");
        }
    }
    EXPECT_EQ(topology.source, model::TopologySource::nvml);
    EXPECT_EQ(topology.provenance, PEERGATE_SIM_NVML);
    EXPECT_EQ(topology.gpus[0].name, "NVIDIA B200");
    EXPECT_EQ(topology.gpus[0].pci->to_nvml(), "00000000:1B:00.0");
    EXPECT_EQ(topology.gpus[7].uuid, "GPU-5e1f0007-0000-4000-8000-000000000007");
    EXPECT_EQ(topology.gpus[0].numa_node, 0);
    EXPECT_EQ(topology.gpus[5].numa_node, 1);
    EXPECT_EQ(topology.gpus[0].cpu_affinity, "0-47,96-143");
    EXPECT_EQ(topology.gpus[5].cpu_affinity, "48-95,144-191");
    EXPECT_GT(result.calls, 64U);
}

// Through NVSwitches the narrower end bounds the path: GPU 3 reaches the switches with 16
// of its 18 links, so each of its pairs reads NV16 both ways, as topo -m shows it.
TEST(NvmlMatrix, ASwitchedPairReadsTheNarrowerEndsLinks) {
    const auto result = run_tier(fixture("nvlink-down-8x"));
    ASSERT_TRUE(result.topology) << result.topology.error().message;
    const auto& m = result.topology->matrix;
    for (std::size_t p = 0; p < 8; ++p) {
        for (std::size_t q = 0; q < 8; ++q) {
            const char* want = p == q ? "X" : (p == 3 || q == 3) ? "NV16" : "NV18";
            EXPECT_EQ(m[p][q].to_token(), want) << p << "," << q;
        }
    }
}

TEST(NvmlMatrix, DirectLinksGiveTheDgx1HybridCubeMesh) {
    const auto machine = load_fixture("nvml-dgx1-v100");
    const auto result = run_tier(fixture("nvml-dgx1-v100"));
    ASSERT_TRUE(result.topology) << result.topology.error().message;
    EXPECT_EQ(tokens(*result.topology), tokens(machine));
    EXPECT_EQ(result.topology->matrix[0][1].to_token(), "NV1");
    EXPECT_EQ(result.topology->matrix[0][3].to_token(), "NV2");
    EXPECT_EQ(result.topology->matrix[0][5].to_token(), "SYS");
    EXPECT_EQ(result.topology->nvlink_islands().size(), 1U);
}

TEST(NvmlMatrix, OneGpuIsNoVerdict) {
    const auto result = run_tier(fixture("nvml-single"));
    ASSERT_FALSE(result.topology);
    EXPECT_EQ(result.topology.error().message, "NVML sees 1 GPU: no pair to judge");
}

// No verdict, yet the one GPU is described, for topo, doctor and place.
TEST(NvmlMatrix, OneGpuIsStillDescribedAsAOneByOneMatrix) {
    const auto machine = load_fixture("nvml-single");
    const auto result = run_tier(fixture("nvml-single"));
    ASSERT_FALSE(result.topology);
    ASSERT_TRUE(result.lone_gpu);
    const auto& lone = *result.lone_gpu;
    ASSERT_EQ(lone.size(), 1U);
    EXPECT_EQ(tokens(lone), (std::vector<std::vector<std::string>>{{"X"}}));
    EXPECT_EQ(lone.gpus[0].name, machine.gpus[0].name);
    EXPECT_EQ(lone.gpus[0].uuid, machine.gpus[0].uuid);
    EXPECT_EQ(lone.gpus[0].pci, machine.gpus[0].pci);
    EXPECT_EQ(lone.source, model::TopologySource::nvml);
    EXPECT_FALSE(lone.provenance.empty());
    EXPECT_TRUE(lone.nvlinked_pairs().empty());
    EXPECT_FALSE(lone.uniformly_nvlinked());
}

TEST(NvmlMatrix, TwoOrMoreGpusDescribeNoLoneGpu) {
    EXPECT_FALSE(run_tier(fixture("nvml-pcie-2x")).lone_gpu);
}

TEST(NvmlMatrix, EveryDenialStatusIsADefiniteAnswerWithThePcieLevel) {
    for (const char* status : {"CNS", "GNS", "TNS", "DR", "NS"}) {
        SCOPED_TRACE(status);
        auto machine = load_fixture("nvml-pcie-2x");
        machine.nvml_p2p_nvlink = {{"X", status}, {status, "X"}};
        const auto result = run_tier(write_variant(machine, status));
        ASSERT_TRUE(result.topology) << result.topology.error().message;
        EXPECT_EQ(result.topology->matrix[0][1].to_token(), "NODE");
        EXPECT_TRUE(result.topology->nvlinked_pairs().empty());
    }
}

TEST(NvmlMatrix, PcieLevelsMapLikeTopoM) {
    const std::pair<const char*, const char*> cases[] = {
        {"PIX", "PIX"}, {"PXB", "PXB"}, {"PHB", "PHB"}, {"NODE", "NODE"}, {"SYS", "SYS"}};
    for (const auto& [label, expected] : cases) {
        SCOPED_TRACE(label);
        auto machine = load_fixture("nvml-pcie-2x");
        machine.matrix[0][1] = *model::LinkLabel::parse(label);
        machine.matrix[1][0] = *model::LinkLabel::parse(label);
        const auto result = run_tier(write_variant(machine, label));
        ASSERT_TRUE(result.topology) << result.topology.error().message;
        EXPECT_EQ(result.topology->matrix[1][0].to_token(), expected);
    }
}

TEST(NvmlMatrix, UnknownStatusFromTheDriverIsNoVerdict) {
    auto machine = load_fixture("nvml-nvswitch-8x");
    machine.faults.push_back(nvml_fault("nvmlDeviceGetP2PStatus", "unknown"));
    const auto result = run_tier(write_variant(machine, "unknown"));
    ASSERT_FALSE(result.topology);
    EXPECT_NE(result.topology.error().message.find("6 (UNKNOWN) is not a definite answer"),
              std::string::npos)
        << result.topology.error().message;
}

TEST(NvmlMatrix, OneUnknownPairSinksTheWholeTier) {
    auto machine = load_fixture("nvml-pcie-2x");
    machine.nvml_p2p_nvlink = {{"X", "NS"}, {"U", "X"}};
    const auto result = run_tier(write_variant(machine, "one-u"));
    ASSERT_FALSE(result.topology);
    EXPECT_NE(result.topology.error().message.find("GPU 1 -> GPU 0"), std::string::npos)
        << result.topology.error().message;
}

TEST(NvmlMatrix, LinkedPairWithoutActiveLinksIsAContradiction) {
    auto machine = load_fixture("nvml-pcie-2x");
    machine.nvml_p2p_nvlink = {{"X", "OK"}, {"OK", "X"}};
    const auto result = run_tier(write_variant(machine, "contradiction"));
    ASSERT_FALSE(result.topology);
    EXPECT_NE(result.topology.error().message.find("contradiction"), std::string::npos)
        << result.topology.error().message;
}

TEST(NvmlMatrix, LinkedPairWhoseLinksGoElsewhereIsAContradiction) {
    // DGX-1: GPU 0 and GPU 5 share no link; a driver calling them linked is not believed.
    auto machine = load_fixture("nvml-dgx1-v100");
    machine.nvml_p2p_nvlink.assign(8, std::vector<std::string>(8, "NS"));
    for (std::size_t p = 0; p < 8; ++p) {
        for (std::size_t q = 0; q < 8; ++q) {
            machine.nvml_p2p_nvlink[p][q] = p == q                             ? "X"
                                            : machine.matrix[p][q].is_nvlink() ? "OK"
                                                                               : "NS";
        }
    }
    machine.nvml_p2p_nvlink[0][5] = "OK";
    const auto result = run_tier(write_variant(machine, "elsewhere"));
    ASSERT_FALSE(result.topology);
    EXPECT_NE(result.topology.error().message.find("no active link of GPU 0 reaches GPU 5"),
              std::string::npos)
        << result.topology.error().message;
}

TEST(NvmlMatrix, AsymmetricStatusesFailTheMatrixCheck) {
    auto machine = load_fixture("nvml-dgx1-v100");
    machine.nvml_p2p_nvlink.assign(8, std::vector<std::string>(8, "NS"));
    for (std::size_t p = 0; p < 8; ++p) {
        for (std::size_t q = 0; q < 8; ++q) {
            machine.nvml_p2p_nvlink[p][q] = p == q                             ? "X"
                                            : machine.matrix[p][q].is_nvlink() ? "OK"
                                                                               : "NS";
        }
    }
    machine.nvml_p2p_nvlink[0][1] = "DR";  // 0 -> 1 disabled, 1 -> 0 linked
    const auto result = run_tier(write_variant(machine, "asym"));
    ASSERT_FALSE(result.topology);
    EXPECT_NE(result.topology.error().message.find("fails a check"), std::string::npos)
        << result.topology.error().message;
}

// Without nvmlDeviceGetNvLinkRemoteDeviceType's answer, an NVSwitch is recognised by the
// PCI class of the link's far end (0x0680) under the host root.
TEST(NvmlMatrix, SwitchIsRecognisedByPciClassWhenTheDriverCannotSay) {
    auto machine = load_fixture("nvml-nvswitch-8x");
    machine.faults.push_back(nvml_fault("nvmlDeviceGetNvLinkRemoteDeviceType", "fail", 3));
    const auto path = write_variant(machine, "class");
    EXPECT_FALSE(run_tier(path).topology) << "without the class, switch links reach no GPU";

    const auto root = std::filesystem::path(::testing::TempDir()) / "peergate-nvml-host-root";
    const auto switches = snapshot::nvswitch_addresses(machine);
    ASSERT_FALSE(switches.empty());
    for (const auto& pci : switches) {
        const auto device = root / "sys/bus/pci/devices" / pci.to_sysfs();
        std::filesystem::create_directories(device);
        std::ofstream(device / "class") << "0x068000\n";
    }
    const auto result = run_tier(path, PEERGATE_SIM_NVML, std::chrono::seconds(10), root.string());
    ASSERT_TRUE(result.topology) << result.topology.error().message;
    EXPECT_EQ(result.topology->matrix[3][6].to_token(), "NV18");
}

TEST(NvmlMatrix, InactiveLinksAreNotCounted) {
    auto machine = load_fixture("nvml-pcie-2x");
    machine.matrix[0][1] = model::LinkLabel::nvlink(4);
    machine.matrix[1][0] = model::LinkLabel::nvlink(4);
    for (auto& gpu : machine.gpus) {
        gpu.nvlink_slots = 4;
        const auto peer = &gpu == &machine.gpus[0] ? machine.gpus[1].pci : machine.gpus[0].pci;
        for (int link = 0; link < 4; ++link) {
            gpu.nvlinks.push_back(snapshot::MachineNvlink{link, link != 2, "gpu", peer});
        }
    }
    const auto result = run_tier(write_variant(machine, "inactive"));
    ASSERT_TRUE(result.topology) << result.topology.error().message;
    EXPECT_EQ(result.topology->matrix[0][1].to_token(), "NV3");
}

}  // namespace
}  // namespace peergate
