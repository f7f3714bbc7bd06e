// SPDX-License-Identifier: Apache-2.0
// PCIe AER counters on the GPUs' paths (policy/doctor/pcie_aer.cpp): each GPU and every
// port above it, named with the GPUs whose traffic crosses it; correctable counts are a
// note, uncorrectable ones a warning; what grew while the probe ran a warning, or an error
// where it was uncorrectable; a count that fell (a reset) or was read once says nothing.
#include "policy/doctor/pcie_aer.hpp"
#include "support/pci_builders.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace peergate::policy::doctor {
namespace {

using test::pci;

using model::AerCounters;
using model::PciAddress;
using model::PciAer;
using model::Severity;

AerCounters counts(std::vector<std::pair<std::string, std::uint64_t>> named) {
    return AerCounters{.counts = std::move(named)};
}

PciAer clean() {
    return PciAer{.correctable = counts({{"BadTLP", 0}}),
                  .nonfatal = counts({{"UnsupReq", 0}}),
                  .fatal = counts({})};
}

// GPUs 0 and 1 behind one switch (04:08.0, 04:10.0 below 03:00.0, root port 00:01.0).
struct AerHost {
    model::Topology topology;
    DoctorInput input;

    AerHost() {
        const std::vector<std::pair<std::string, std::string>> gpus{
            {"0000:05:00.0", "0000:04:08.0"}, {"0000:06:00.0", "0000:04:10.0"}};
        for (std::size_t g = 0; g < gpus.size(); ++g) {
            const int index = static_cast<int>(g);
            topology.gpus.push_back(model::Gpu{.index = index, .pci = pci(gpus[g].first)});
            input.aer[pci(gpus[g].first)] = clean();
            for (const auto& port :
                 {gpus[g].second, std::string("0000:03:00.0"), std::string("0000:00:01.0")}) {
                input.ports[index].push_back(model::PciPort{.address = pci(port)});
                input.aer[pci(port)] = clean();
            }
        }
    }
};

TEST(PcieAer, EveryDeviceOnThePathsKnowsItsGpus) {
    const AerHost host;
    const auto through = gpus_through(host.input, host.topology);
    ASSERT_EQ(through.size(), 6U);
    EXPECT_EQ(through.at(pci("0000:00:01.0")), (std::vector<int>{0, 1}));
    EXPECT_EQ(through.at(pci("0000:04:10.0")), std::vector<int>{1});
    EXPECT_EQ(through.at(pci("0000:06:00.0")), std::vector<int>{1});
    EXPECT_TRUE(pcie_aer_findings(host.input, host.topology).empty());
}

TEST(PcieAer, CorrectableCountsAreANoteNamingTheGpu) {
    AerHost host;
    host.input.aer[pci("0000:06:00.0")].correctable =
        counts({{"RxErr", 0}, {"BadTLP", 37}, {"BadDLLP", 5}});
    const auto findings = pcie_aer_findings(host.input, host.topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "pcie_aer_errors");
    EXPECT_EQ(findings[0].severity, Severity::info);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{1});
    EXPECT_NE(findings[0].message.find("GPU 1 (0000:06:00.0) counts PCIe errors since boot (AER): "
                                       "correctable: 37 BadTLP, 5 BadDLLP."),
              std::string::npos)
        << findings[0].message;
}

TEST(PcieAer, AnUncorrectableCountAtASharedPortIsAWarningForEveryGpuBelow) {
    AerHost host;
    host.input.aer[pci("0000:00:01.0")].nonfatal = counts({{"UnsupReq", 1}, {"ACSViol", 2}});
    const auto findings = pcie_aer_findings(host.input, host.topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, (std::vector<int>{0, 1}));
    EXPECT_NE(findings[0].message.find("the PCIe port 0000:00:01.0 above GPUs 0, 1"),
              std::string::npos);
    EXPECT_NE(findings[0].message.find("non-fatal: 1 UnsupReq, 2 ACSViol"), std::string::npos)
        << findings[0].message;
}

TEST(PcieAer, AFileWithOnlyATotalIsNamedByItsTotal) {
    AerHost host;
    host.input.aer[pci("0000:03:00.0")].fatal = AerCounters{.total = 3};
    const auto findings = pcie_aer_findings(host.input, host.topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_NE(findings[0].message.find("fatal: 3 error messages"), std::string::npos)
        << findings[0].message;
}

// A ConnectX (07:00.0) and a virtual function of it: the card's own counters, by its names.
TEST(NicAer, ANicsCountsAreNamedByItsBusIdAndRdmaDevices) {
    AerHost host;
    host.input.nics = {
        {.path = {.device = pci("0000:07:00.0"), .ports = {}}, .rdma_devices = {"mlx5_0"}},
        {.path = {.device = pci("0000:07:00.2"), .ports = {}},
         .physical_function = pci("0000:07:00.0")}};
    host.input.aer[pci("0000:07:00.0")] = clean();
    host.input.aer[pci("0000:07:00.2")] = clean();
    EXPECT_TRUE(nic_aer_findings(host.input).empty());  // zeros say nothing

    host.input.aer[pci("0000:07:00.0")].correctable = counts({{"BadTLP", 12}});
    host.input.aer[pci("0000:07:00.2")].fatal = counts({{"DLP", 1}});  // not the card's own
    auto findings = nic_aer_findings(host.input);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nic_aer_errors");
    EXPECT_EQ(findings[0].severity, Severity::info);
    EXPECT_TRUE(findings[0].gpus.empty());
    EXPECT_NE(findings[0].message.find(
                  "NIC 0000:07:00.0 (mlx5_0) counts PCIe errors since boot (AER): correctable: "
                  "12 BadTLP."),
              std::string::npos)
        << findings[0].message;

    host.input.aer[pci("0000:07:00.0")].nonfatal = counts({{"CmpltTO", 3}});
    findings = nic_aer_findings(host.input);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_TRUE(pcie_aer_findings(host.input, host.topology).empty());  // no GPU path
}

TEST(PcieAerUnderLoad, CorrectableGrowthIsAWarningWithWhatItGained) {
    AerHost host;
    host.input.aer[pci("0000:06:00.0")].correctable = counts({{"BadTLP", 37}});
    host.input.aer_after_probe = host.input.aer;
    host.input.aer_after_probe[pci("0000:06:00.0")].correctable =
        counts({{"BadTLP", 52}, {"Timeout", 3}});
    const auto findings = pcie_aer_under_load_findings(host.input, host.topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "pcie_aer_errors_under_load");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_NE(findings[0].message.find("correctable: +15 BadTLP, +3 Timeout"), std::string::npos)
        << findings[0].message;
}

TEST(PcieAerUnderLoad, UncorrectableGrowthIsAnErrorThatKeepsPeerAccessOff) {
    AerHost host;
    host.input.aer_after_probe = host.input.aer;
    host.input.aer_after_probe[pci("0000:00:01.0")].nonfatal = counts({{"UnsupReq", 4}});
    const auto findings = pcie_aer_under_load_findings(host.input, host.topology);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_EQ(findings[0].gpus, (std::vector<int>{0, 1}));
    EXPECT_NE(findings[0].remedy.find("NCCL_P2P_DISABLE=1"), std::string::npos);
}

TEST(PcieAerUnderLoad, ResetsAndSingleReadsSayNothing) {
    AerHost host;
    host.input.aer[pci("0000:06:00.0")].correctable = counts({{"BadTLP", 90}});
    host.input.aer_after_probe = host.input.aer;
    host.input.aer_after_probe[pci("0000:06:00.0")].correctable = counts({{"BadTLP", 2}});
    host.input.aer_after_probe.erase(pci("0000:00:01.0"));
    EXPECT_TRUE(pcie_aer_under_load_findings(host.input, host.topology).empty());
    host.input.aer_after_probe.clear();  // no probe
    EXPECT_TRUE(pcie_aer_under_load_findings(host.input, host.topology).empty());
}

}  // namespace
}  // namespace peergate::policy::doctor
