// SPDX-License-Identifier: Apache-2.0
// The one assessment (policy/assess, docs/assessment.md): each pair's state from its layers and
// the probe evidence, this run's or the verdict cache's; the host's silent-drop risk; the node.
#include "policy/assess/assessment.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::assess {
namespace {

using doctor::DoctorInput;
using doctor::DoctorReport;
using doctor::PairLayers;
using model::PairVerdict;

PairLayers pcie(int src, int dst) {
    return PairLayers{.src = src,
                      .dst = dst,
                      .label = "NODE",
                      .nvml = {"OK", "OK", "NS", "NS", "OK"},
                      .cuda_can_access_peer = true};
}

model::ProbeResult probed(std::vector<model::ProbePair> pairs, model::ProbeOutcome outcome) {
    return model::ProbeResult{.outcome = outcome, .pairs = std::move(pairs)};
}

TEST(PairState, TheWorstEvidenceWins) {
    const auto layers = pcie(0, 1);
    EXPECT_EQ(pair_state(layers, nullptr), PairState::pcie_unverified);
    model::ProbePair pair{.src = 0, .dst = 1, .verdict = PairVerdict::ok};
    EXPECT_EQ(pair_state(layers, &pair), PairState::pcie_proven);
    pair.verdict = PairVerdict::error;
    EXPECT_EQ(pair_state(layers, &pair), PairState::probe_error) << "doubt, not data lost";
    pair.verdict = PairVerdict::data_lost;
    EXPECT_EQ(pair_state(layers, &pair), PairState::data_lost);
    pair.verdict = PairVerdict::skipped;
    EXPECT_EQ(pair_state(layers, &pair), PairState::pcie_unverified) << "skipped tests nothing";
    auto nvlink = layers;
    nvlink.label = "NV4";
    EXPECT_EQ(pair_state(nvlink, nullptr), PairState::nvlink);
    pair.verdict = PairVerdict::data_lost;
    EXPECT_EQ(pair_state(nvlink, &pair), PairState::data_lost) << "NVLink does not hide a loss";
    auto refused = layers;
    refused.cuda_can_access_peer = false;
    EXPECT_EQ(pair_state(refused, nullptr), PairState::staged_only);
    auto unread = layers;
    unread.nvml = {};
    unread.cuda_can_access_peer.reset();
    EXPECT_EQ(pair_state(unread, nullptr), PairState::pcie_unverified)
        << "a layer not read refuses nothing";
    auto slow = nvlink;
    slow.p2p_gbps = 5;
    slow.staged_gbps = 11;
    EXPECT_EQ(pair_state(slow, nullptr), PairState::slower_than_staged);
}

TEST(PairState, StatesAreOrderedBestFirstAndEachHasAnId) {
    std::string_view previous;
    for (std::size_t i = 0; i + 1 < std::size(kAllPairStates); ++i) {
        EXPECT_LT(kAllPairStates[i], kAllPairStates[i + 1]);
        EXPECT_NE(id(kAllPairStates[i]), previous);
        previous = id(kAllPairStates[i]);
    }
    EXPECT_EQ(id(PairState::data_lost), "data_lost");
    EXPECT_EQ(id(PairState::probe_error), "probe_error");
}

TEST(Assessment, ACachedVerdictIsThePairsEvidenceWhereNoProbeRanNow) {
    DoctorInput input;
    input.pairs = {pcie(0, 1), pcie(1, 0)};
    input.cached_probe = probed({{.src = 0, .dst = 1, .verdict = PairVerdict::data_lost},
                                 {.src = 1, .dst = 0, .verdict = PairVerdict::ok}},
                                model::ProbeOutcome::fail);
    const auto a = assess(input, DoctorReport{}, {});
    EXPECT_EQ(a.probe.source, ProbeSource::cached);
    EXPECT_EQ(a.probe.outcome, model::ProbeOutcome::fail);
    EXPECT_EQ(a.pair(0, 1)->state, PairState::data_lost);
    EXPECT_EQ(a.pair(0, 1)->probe, ProbeSource::cached);
    EXPECT_TRUE(a.pair(0, 1)->contradiction());
    EXPECT_EQ(a.pair(1, 0)->state, PairState::pcie_proven);
    EXPECT_EQ(a.worst_of(1, 0), PairState::data_lost);
    input.probe = probed({{.src = 0, .dst = 1, .verdict = PairVerdict::ok},
                          {.src = 1, .dst = 0, .verdict = PairVerdict::ok}},
                         model::ProbeOutcome::pass);
    const auto fresh = assess(input, DoctorReport{}, {});
    EXPECT_EQ(fresh.probe.source, ProbeSource::this_run) << "this run's probe comes first";
    EXPECT_EQ(fresh.pair(0, 1)->state, PairState::pcie_proven);
}

TEST(Assessment, OnlyThePathsTestedAreListed) {
    DoctorInput input;
    input.pairs = {pcie(0, 1)};
    input.probe = probed({{.src = 0,
                           .dst = 1,
                           .verdict = PairVerdict::ok,
                           .paths = {{model::ProbePath::ce, PairVerdict::ok},
                                     {model::ProbePath::sm_store, PairVerdict::skipped}}}},
                         model::ProbeOutcome::pass);
    const auto a = assess(input, DoctorReport{}, {});
    ASSERT_EQ(a.pair(0, 1)->paths.size(), 1U);
    EXPECT_EQ(a.pair(0, 1)->paths[0].path, model::ProbePath::ce);
}

TEST(Assessment, TheNodeIsUnusableWhereCudaCannotStartWhateverTheLinks) {
    DoctorInput input;
    input.pairs = {PairLayers{.src = 0, .dst = 1, .label = "NV18"}};
    DoctorReport report;
    report.findings.push_back(model::Finding{.code = model::FindingCode::nvswitch_fabric_not_ready,
                                             .severity = model::Severity::error});
    const auto a = assess(input, report, {.p2p = false, .rule = "cuda_unavailable", .reason = ""});
    EXPECT_EQ(a.node.state, doctor::NodeState::unusable);
    EXPECT_EQ(a.pair(0, 1)->state, PairState::nvlink);
}

TEST(SilentDropRisk, OneAnswerFromTheIommuAndTheHypervisorFlag) {
    model::HostFacts host;
    EXPECT_EQ(model::silent_drop_risk(host).risk, model::SilentDropRisk::unknown);
    host.iommu = model::IommuMode::translating;
    EXPECT_EQ(model::silent_drop_risk(host).basis, model::SilentDropBasis::hypervisor_unknown);
    EXPECT_EQ(model::silent_drop_risk(host).risk, model::SilentDropRisk::unknown);
    host.hypervisor = false;
    EXPECT_EQ(model::silent_drop_risk(host).risk, model::SilentDropRisk::present);
    host.hypervisor = true;
    EXPECT_EQ(model::silent_drop_risk(host).risk, model::SilentDropRisk::absent);
    host.iommu = model::IommuMode::identity;
    host.hypervisor = false;
    EXPECT_EQ(model::silent_drop_risk(host).risk, model::SilentDropRisk::absent);
    host.iommu = model::IommuMode::off;
    EXPECT_EQ(model::silent_drop_risk(host).basis, model::SilentDropBasis::iommu_off);
}

}  // namespace
}  // namespace peergate::policy::assess
