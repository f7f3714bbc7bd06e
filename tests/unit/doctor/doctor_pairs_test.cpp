// SPDX-License-Identifier: Apache-2.0
// The doctor's reading of the capability layers per pair, and --gpus (policy/doctor*.cpp).
#include "../policy/gate_test_support.hpp"
#include "policy/doctor/doctor.hpp"
#include "policy/doctor/pairs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace peergate::policy::doctor {
namespace {

using model::Finding;

// Both directions of a pair with the same answers: NVML read/write/prop `rw`, NVLink
// status `nvlink`, and CUDA's can-access-peer.
std::vector<PairLayers> both_ways(int a,
                                  int b,
                                  const std::string& label,
                                  const std::string& rw,
                                  const std::string& nvlink,
                                  std::optional<bool> cuda) {
    PairLayers there{.src = a,
                     .dst = b,
                     .label = label,
                     .nvml = {rw, rw, nvlink, nvlink, rw},
                     .cuda_can_access_peer = cuda};
    PairLayers back = there;
    std::swap(back.src, back.dst);
    return {there, back};
}

std::vector<PairLayers> joined(std::initializer_list<std::vector<PairLayers>> parts) {
    std::vector<PairLayers> out;
    for (const auto& part : parts) {
        out.insert(out.end(), part.begin(), part.end());
    }
    return out;
}

const Finding* find(const std::vector<Finding>& findings, const std::string& code) {
    const auto it = std::find_if(
        findings.begin(), findings.end(), [&](const Finding& f) { return f.id() == code; });
    return it == findings.end() ? nullptr : &*it;
}

TEST(DoctorPairs, PeerAccessIsRefusedOnlyWhenTheCudaDriverSaysNoBothWays) {
    auto pairs = both_ways(0, 1, "PIX", "GNS", "NS", false);
    EXPECT_TRUE(peer_access_refused(pairs, 0, 1));
    EXPECT_TRUE(peer_access_refused(pairs, 1, 0));
    pairs[1].cuda_can_access_peer = true;  // one direction allows it: a direct path exists
    EXPECT_FALSE(peer_access_refused(pairs, 0, 1));
    pairs[1].cuda_can_access_peer.reset();  // unknown is not a refusal
    EXPECT_FALSE(peer_access_refused(pairs, 0, 1));
    EXPECT_FALSE(peer_access_refused(pairs, 0, 2));  // a pair nobody asked about
}

TEST(DoctorPairs, NvmlAndCudaDisagreeingIsAWarningNamingTheFirstPairAndCountingTheRest) {
    const auto pairs = joined({both_ways(0, 1, "NODE", "OK", "NS", false),
                               both_ways(0, 2, "NODE", "OK", "NS", true),
                               both_ways(1, 2, "NODE", "CNS", "NS", true)});
    const auto findings = pair_findings(pairs);
    const Finding* f = find(findings, "p2p_layers_disagree");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, model::Severity::warning);
    EXPECT_EQ(f->message,
              "NVML and the CUDA driver disagree on peer access (GPU 0 -> GPU 1: NVML P2P read OK, "
              "cuDeviceCanAccessPeer 0; 3 more ordered pairs)");
    EXPECT_EQ(f->gpus, (std::vector<int>{0, 1, 2}));
    EXPECT_NE(f->remedy.find("cuDeviceCanAccessPeer"), std::string::npos);
}

TEST(DoctorPairs, UnreadLayersNeverDisagree) {
    const auto pairs = joined({both_ways(0, 1, "NODE", "", "", true),
                               both_ways(0, 2, "NV4", "OK", "", std::nullopt),
                               both_ways(1, 2, "", "OK", "OK", true)});
    EXPECT_TRUE(pair_findings(pairs).empty());
}

TEST(DoctorPairs, TopologyAndNvmlDisagreeingOnNvlinkIsAWarningEitherWay) {
    const auto findings = pair_findings(both_ways(0, 1, "NV4", "OK", "NS", true));
    const Finding* f = find(findings, "nvlink_status_disagrees");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->message,
              "The topology and NVML disagree on NVLink (GPU 0 -> GPU 1: the topology says NV4, "
              "NVML's NVLink P2P status is NS; 1 more ordered pairs)");
    const auto linked_on_sys = pair_findings(both_ways(0, 1, "SYS", "OK", "OK", true));
    EXPECT_NE(find(linked_on_sys, "nvlink_status_disagrees"), nullptr);
    EXPECT_TRUE(pair_findings(both_ways(0, 1, "NV4", "OK", "OK", true)).empty());
}

TEST(DoctorPairs, PairsWithoutPeerAccessAreInformationCountedOncePerPair) {
    const auto pairs = joined({both_ways(0, 1, "PIX", "GNS", "NS", false),
                               both_ways(0, 2, "SYS", "GNS", "NS", false),
                               both_ways(1, 2, "SYS", "GNS", "NS", false)});
    const auto findings = pair_findings(pairs);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "p2p_not_supported");
    EXPECT_EQ(findings[0].severity, model::Severity::info);
    EXPECT_NE(findings[0].message.find("(GPU 0 and GPU 1: cuDeviceCanAccessPeer 0 both ways, "
                                       "NVML P2P read GNS; 2 more pairs)"),
              std::string::npos)
        << findings[0].message;
}

TEST(DoctorPairs, P2pSlowerThanStagingIsAWarningWithBothRates) {
    auto pairs = both_ways(0, 1, "NODE", "OK", "NS", true);
    pairs[0].p2p_gbps = 1.6;
    pairs[0].staged_gbps = 13.0;
    pairs[1].p2p_gbps = 22.0;  // faster than staged: no finding for this direction
    pairs[1].staged_gbps = 13.0;
    const auto findings = pair_findings(pairs);
    const Finding* f = find(findings, "p2p_slower_than_staged");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->severity, model::Severity::warning);
    EXPECT_EQ(f->message,
              "Peer-to-peer copies are slower than copies staged through host memory (GPU 0 -> "
              "GPU 1: P2P 1.6 GB/s, staged 13.0 GB/s)");
    pairs[0].staged_gbps.reset();  // nothing to compare with
    EXPECT_EQ(find(pair_findings(pairs), "p2p_slower_than_staged"), nullptr);
}

TEST(DoctorPairs, CapabilityClaimsCountThePairsBothLayersVouchFor) {
    const auto pairs = joined({both_ways(0, 1, "NODE", "OK", "NS", true),
                               both_ways(0, 2, "NODE", "OK", "NS", std::nullopt),
                               both_ways(1, 2, "NODE", "OK", "NS", false)});
    const auto text = capability_claims(pairs, {{0, 1}, {0, 2}, {1, 2}});
    EXPECT_NE(text.find("claim peer access for 2 of the 4 ordered pairs they were asked about"),
              std::string::npos)
        << text;
    EXPECT_EQ(capability_claims(pairs, {{0, 2}}), "");  // CUDA was not read there
    EXPECT_EQ(capability_claims({}, {{0, 1}}), "");
}

// A bare-metal host with a translating IOMMU and a topology in force.
DoctorInput translating_host(model::Topology topology) {
    DoctorInput input;
    input.parts.push_back(PartStatus{.what = "NVML library", .found = true});
    input.discovery.topology = std::move(topology);
    input.host = model::HostFacts{.iommu = model::IommuMode::translating,
                                  .iommu_detail = "8 groups; group 3 is DMA-FQ",
                                  .hypervisor = false};
    return input;
}

TEST(DoctorDiagnose, PciePairsTheCudaDriverRefusesAreSafeUnderATranslatingIommu) {
    auto input = translating_host(test::pcie_box(2, "NVIDIA GeForce RTX 4090", "PIX"));
    input.pairs = both_ways(0, 1, "PIX", "GNS", "NS", false);
    const auto report = diagnose(input);
    EXPECT_EQ(report.verdict, Verdict::healthy);
    EXPECT_EQ(find(report.findings, "pcie_p2p_under_translating_iommu"), nullptr);
    EXPECT_NE(find(report.findings, "p2p_not_supported"), nullptr);

    input.pairs = both_ways(0, 1, "PIX", "OK", "NS", true);
    const auto risky = diagnose(input);
    EXPECT_EQ(risky.verdict, Verdict::problems);
    const Finding* f = find(risky.findings, "pcie_p2p_under_translating_iommu");
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->message.find("claim peer access for 2 of the 2"), std::string::npos);

    input.pairs.clear();  // layers unread: still an error (unknown is not safe)
    EXPECT_EQ(diagnose(input).verdict, Verdict::problems);
}

TEST(DoctorDiagnose, SelectionKeepsTheVerdictToTheGpusExamined) {
    auto input = translating_host(test::bridged_a100_4x());
    EXPECT_EQ(diagnose(input).verdict, Verdict::problems);  // 0 to 2 is SYS
    input.selection = {0, 1};
    EXPECT_EQ(diagnose(input).verdict, Verdict::healthy);  // NV12 only
    input.selection = {1, 2};
    const auto report = diagnose(input);
    const Finding* f = find(report.findings, "pcie_p2p_under_translating_iommu");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->gpus, (std::vector<int>{1, 2}));
    input.selection = {3};
    const auto one = diagnose(input);
    EXPECT_EQ(one.verdict, Verdict::healthy);
    ASSERT_NE(find(one.findings, "single_gpu"), nullptr);
    EXPECT_EQ(find(one.findings, "single_gpu")->message,
              "One GPU selected: there is no peer-to-peer traffic to gate.");
}

TEST(DoctorDiagnose, KernelFindingsAboutGpusOutsideTheSelectionAreLeftOut) {
    auto topology = test::uniform_nvlink(2);
    topology.gpus[0].pci = model::PciAddress::parse("00000000:17:00.0").value();
    topology.gpus[1].pci = model::PciAddress::parse("00000000:41:00.0").value();
    auto input = translating_host(std::move(topology));
    input.kernel_events.push_back(
        model::KernelEvent{.kind = model::KernelEventKind::dmar_fault,
                           .device = model::PciAddress::parse("0000:41:00.0").value(),
                           .line = "DMAR: [DMA Write NO_PASID] Request device [41:00.0] fault"});
    EXPECT_EQ(diagnose(input).verdict, Verdict::problems);
    input.selection = {0};
    EXPECT_EQ(diagnose(input).verdict, Verdict::healthy);
    input.selection = {1};
    EXPECT_EQ(diagnose(input).verdict, Verdict::problems);
}

}  // namespace
}  // namespace peergate::policy::doctor
