// SPDX-License-Identifier: Apache-2.0
// Tiering and the cross-check with NVML from the simulated library and topo -m from a
// stand-in nvidia-smi: disagreements in both directions, topo -m preferred.
#include "loader/nvml/nvml_loader_support.hpp"
#include "report/topology/json.hpp"
#include "sources/discovery/topology_tiers.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using namespace testing_nvml;  // NOLINT(google-build-using-namespace)

// The machine's matrix as nvidia-smi topo -m prints it (tab-separated, with a legend).
std::string topo_m_text(const snapshot::MachineFile& machine) {
    std::string text = "\t";
    for (std::size_t q = 0; q < machine.gpus.size(); ++q) {
        text += "GPU" + std::to_string(q) + "\t";
    }
    text += "CPU Affinity\tNUMA Affinity\n";
    for (std::size_t p = 0; p < machine.gpus.size(); ++p) {
        text += "GPU" + std::to_string(p);
        for (const auto& label : machine.matrix[p]) {
            text += "\t" +
                    (label.kind == model::LinkKind::self ? std::string(" X ") : label.to_token());
        }
        text += "\t" + machine.gpus[p].cpu_affinity + "\t0\n";
    }
    return text + "\nLegend:\n\n  X    = Self\n";
}

struct Host {
    util::Seams seams;
    util::EnvMap env;
};

Host simulated_host(const snapshot::MachineFile& machine, const std::string& tag) {
    Host host;
    const std::string topo_path = ::testing::TempDir() + "/peergate-topo-" + tag + ".txt";
    EXPECT_TRUE(util::write_file_atomically(topo_path, topo_m_text(machine)));
    const std::string machine_path = write_variant(machine, tag);
    ::setenv("PEERGATE_SIM_MACHINE", machine_path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    host.seams.nvml_libraries = {PEERGATE_SIM_NVML};
    host.seams.nvidia_smi = std::string(PEERGATE_TEST_SCRIPTS) + "/fake-nvidia-smi-topo.sh";
    host.seams.host_root = "/nonexistent-host-root";
    host.env.set("PEERGATE_FAKE_TOPO_M", topo_path);
    host.env.set("PATH", "/usr/bin:/bin");
    return host;
}

model::Discovery crosschecked(const Host& host) {
    return sources::discover_topology(
        host.seams, host.env, sources::DiscoveryRequest{.crosscheck = true});
}

using Pairs = std::vector<std::pair<int, int>>;

TEST(NvmlCrosscheck, NvmlOnlyLinkIsReportedAndTopoMWins) {
    // The driver claims four links between GPUs 0 and 1; topo -m says NODE.
    auto machine = load_fixture("nvml-pcie-2x");
    machine.nvml_p2p_nvlink = {{"X", "OK"}, {"OK", "X"}};
    for (std::size_t p = 0; p < 2; ++p) {
        machine.gpus[p].nvlink_slots = 4;
        for (int link = 0; link < 4; ++link) {
            machine.gpus[p].nvlinks.push_back(
                snapshot::MachineNvlink{link, true, "gpu", machine.gpus[1 - p].pci});
        }
    }
    const auto discovery = crosschecked(simulated_host(machine, "nvml-only"));
    ASSERT_TRUE(discovery.crosscheck);
    EXPECT_EQ(discovery.crosscheck->nvml_only, (Pairs{{0, 1}}));
    EXPECT_TRUE(discovery.crosscheck->smi_only.empty());
    ASSERT_TRUE(discovery.topology);
    EXPECT_EQ(discovery.topology->source, model::TopologySource::nvidia_smi);
    EXPECT_EQ(discovery.topology->matrix[0][1].to_token(), "NODE");

    const auto json = report::topology::topology_to_json(discovery);
    EXPECT_EQ(json["crosscheck"]["nvml"][0][1], "NV4");
    EXPECT_EQ(json["crosscheck"]["smi"][0][1], "NODE");
    EXPECT_EQ(json["crosscheck"]["agree"], false);
}

TEST(NvmlCrosscheck, TopoOnlyLinkIsReported) {
    // topo -m shows NV1 between GPUs 0 and 1; the driver denies the NVLink path.
    auto machine = load_fixture("nvml-dgx1-v100");
    machine.nvml_p2p_nvlink.assign(8, std::vector<std::string>(8, "NS"));
    for (std::size_t p = 0; p < 8; ++p) {
        for (std::size_t q = 0; q < 8; ++q) {
            machine.nvml_p2p_nvlink[p][q] = p == q                             ? "X"
                                            : machine.matrix[p][q].is_nvlink() ? "OK"
                                                                               : "NS";
        }
    }
    machine.nvml_p2p_nvlink[0][1] = "NS";
    machine.nvml_p2p_nvlink[1][0] = "NS";
    const auto discovery = crosschecked(simulated_host(machine, "smi-only"));
    ASSERT_TRUE(discovery.crosscheck);
    EXPECT_TRUE(discovery.crosscheck->nvml_only.empty());
    EXPECT_EQ(discovery.crosscheck->smi_only, (Pairs{{0, 1}}));
    ASSERT_TRUE(discovery.topology);
    EXPECT_EQ(discovery.topology->matrix[0][1].to_token(), "NV1");
}

TEST(NvmlCrosscheck, AgreeingTiersSayAgree) {
    const auto discovery = crosschecked(simulated_host(load_fixture("nvml-nvswitch-8x"), "agree"));
    ASSERT_TRUE(discovery.crosscheck);
    EXPECT_TRUE(discovery.crosscheck->agree());
    ASSERT_EQ(discovery.attempts.size(), 2U);
    EXPECT_TRUE(discovery.attempts[0].topology);
    EXPECT_TRUE(discovery.attempts[1].topology);
}

TEST(NvmlTiering, NvmlAnswersFirstWithoutCrosscheck) {
    const auto host = simulated_host(load_fixture("nvml-dgx1-v100"), "first");
    const auto discovery = sources::discover_topology(host.seams, host.env, {});
    ASSERT_TRUE(discovery.topology);
    EXPECT_EQ(discovery.topology->source, model::TopologySource::nvml);
    EXPECT_EQ(discovery.attempts.size(), 1U) << "nvidia-smi is not run when NVML answered";
}

TEST(NvmlTiering, NvmlFaultFallsBackToTopoM) {
    auto machine = load_fixture("nvml-dgx1-v100");
    machine.faults.push_back(nvml_fault("nvmlDeviceGetP2PStatus", "fail"));
    const auto host = simulated_host(machine, "fallback");
    const auto discovery = sources::discover_topology(host.seams, host.env, {});
    ASSERT_TRUE(discovery.topology);
    EXPECT_EQ(discovery.topology->source, model::TopologySource::nvidia_smi);
    ASSERT_EQ(discovery.attempts.size(), 2U);
    EXPECT_NE(discovery.attempts[0].reason.find("nvmlDeviceGetP2PStatus"), std::string::npos);
}

TEST(NvmlTiering, BothBrokenSaysWhy) {
    auto machine = load_fixture("nvml-dgx1-v100");
    machine.faults.push_back(nvml_fault("", "fail"));
    auto host = simulated_host(machine, "both");
    host.seams.nvidia_smi = "/nonexistent/nvidia-smi";
    const auto discovery = sources::discover_topology(host.seams, host.env, {});
    EXPECT_FALSE(discovery.topology);
    EXPECT_EQ(discovery.reason,
              "neither NVML nor nvidia-smi topo -m gave a usable interconnect matrix");
}

}  // namespace
}  // namespace peergate
