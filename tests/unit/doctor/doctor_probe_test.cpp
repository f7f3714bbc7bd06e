// SPDX-License-Identifier: Apache-2.0
// What doctor --probe concludes from a probe result (policy/doctor/probe.cpp).
#include "../policy/gate_test_support.hpp"
#include "policy/doctor/doctor.hpp"
#include "policy/doctor/probe.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace peergate::policy::doctor {
namespace {

using model::PairVerdict;
using model::ProbeOutcome;

model::ProbeResult result_of(ProbeOutcome outcome,
                             std::vector<std::tuple<int, int, PairVerdict>> pairs) {
    model::ProbeResult result{.outcome = outcome,
                              .reason = "data lost: GPU 0 -> GPU 1 (concurrent)",
                              .gpus = {0, 1, 2},
                              .modes = {model::ProbeMode::serial, model::ProbeMode::concurrent},
                              .remedy = "boot with iommu=pt"};
    for (const auto& [src, dst, verdict] : pairs) {
        result.pairs.push_back(model::ProbePair{.src = src, .dst = dst, .verdict = verdict});
    }
    return result;
}

TEST(DoctorProbeFinding, LostDataIsAnErrorNamingOnlyThePairsThatLostIt) {
    const auto f = probe_finding(result_of(
        ProbeOutcome::fail,
        {{0, 1, PairVerdict::data_lost}, {1, 0, PairVerdict::ok}, {1, 2, PairVerdict::ok}}));
    EXPECT_EQ(f.id(), "probe_data_lost");
    EXPECT_EQ(f.severity, model::Severity::error);
    EXPECT_EQ(f.gpus, (std::vector<int>{0, 1}));
    EXPECT_EQ(f.message,
              "Peer copies lost data under the probe (data lost: GPU 0 -> GPU 1 (concurrent))");
    EXPECT_EQ(f.remedy, "boot with iommu=pt");
}

TEST(DoctorProbeFinding, PassAndInconclusiveSayWhatWasMovedOrWhyNothingWas) {
    const auto pass = probe_finding(
        result_of(ProbeOutcome::pass, {{0, 1, PairVerdict::ok}, {1, 0, PairVerdict::ok}}));
    EXPECT_EQ(pass.id(), "probe_intact");
    EXPECT_EQ(pass.severity, model::Severity::info);
    EXPECT_EQ(pass.message,
              "The probe moved and compared data on 2 ordered pairs (modes serial, concurrent): "
              "all intact");
    auto stuck = result_of(ProbeOutcome::inconclusive, {});
    stuck.reason = "cannot run: cuInit failed";
    const auto f = probe_finding(stuck);
    EXPECT_EQ(f.id(), "probe_inconclusive");
    EXPECT_EQ(f.severity, model::Severity::warning);
    EXPECT_EQ(f.message, "The probe could not decide: cannot run: cuInit failed");
}

TEST(DoctorProbeFinding, OnlyAPassCoveringBothDirectionsOfEveryPairVouches) {
    const auto pass =
        result_of(ProbeOutcome::pass, {{0, 1, PairVerdict::ok}, {1, 0, PairVerdict::ok}});
    EXPECT_TRUE(probe_vouches_for(pass, {{0, 1}}));
    EXPECT_FALSE(probe_vouches_for(pass, {{0, 1}, {1, 2}}));  // 1-2 was not probed
    const auto one_way = result_of(ProbeOutcome::pass, {{0, 1, PairVerdict::ok}});
    EXPECT_FALSE(probe_vouches_for(one_way, {{0, 1}}));
    auto failed = pass;
    failed.outcome = ProbeOutcome::fail;
    EXPECT_FALSE(probe_vouches_for(failed, {{0, 1}}));
}

// Two GPUs joined by NV12 with a driver found: a machine where nothing but a probe finds fault.
DoctorInput nvlinked_pair_with_driver() {
    DoctorInput input;
    input.parts = {PartStatus{.what = "CUDA driver library", .found = true}};
    model::Topology nvlinked;
    nvlinked.gpus = {model::Gpu{.index = 0}, model::Gpu{.index = 1}};
    nvlinked.matrix = {{model::LinkLabel::self(), model::LinkLabel::nvlink(12)},
                       {model::LinkLabel::nvlink(12), model::LinkLabel::self()}};
    input.discovery.topology = nvlinked;
    return input;
}

// On NVLink nothing else finds fault, so only the probe's loss can make the verdict
// problems (an NVLink pair that loses data is a hardware fault, not the IOMMU's).
TEST(DoctorProbeFinding, LostDataMakesAHealthyBoxProblems) {
    DoctorInput input = nvlinked_pair_with_driver();
    EXPECT_EQ(diagnose(input).verdict, Verdict::healthy);
    input.probe = result_of(ProbeOutcome::fail, {{0, 1, PairVerdict::data_lost}});
    const auto report = diagnose(input);
    EXPECT_EQ(report.verdict, Verdict::problems);
    EXPECT_EQ(exit_status(report.verdict), 1);
}

TEST(DoctorCachedProbe, ALossAmongTheGpusExaminedIsAnErrorSayingWhen) {
    const auto cached = result_of(
        ProbeOutcome::fail,
        {{0, 1, PairVerdict::ok}, {2, 1, PairVerdict::data_lost}, {1, 2, PairVerdict::ok}});
    const auto f = cached_probe_finding(cached, "2026-12-01T08:00:00Z", {});
    ASSERT_TRUE(f);
    EXPECT_EQ(f->id(), "cached_probe_data_lost");
    EXPECT_EQ(f->severity, model::Severity::error);
    EXPECT_EQ(f->gpus, (std::vector<int>{1, 2}));
    EXPECT_EQ(f->message,
              "The probe run earlier on this boot (the verdict cache, written "
              "2026-12-01T08:00:00Z) lost data on GPU 2 -> GPU 1");
    EXPECT_EQ(f->remedy, "boot with iommu=pt");

    const auto other = cached_probe_finding(cached, "", {0, 1});  // the loss is elsewhere
    ASSERT_TRUE(other);
    EXPECT_EQ(other->id(), "cached_probe_intact");
    EXPECT_EQ(other->severity, model::Severity::info);
    EXPECT_NE(other->message.find("on 1 ordered pairs"), std::string::npos) << other->message;
    EXPECT_NE(other->message.find("at an unknown time"), std::string::npos) << other->message;
}

TEST(DoctorCachedProbe, NothingWhenItTestedNoneOrSomeWereNotIntact) {
    const auto cached = result_of(ProbeOutcome::inconclusive,
                                  {{0, 1, PairVerdict::ok}, {1, 0, PairVerdict::skipped}});
    EXPECT_FALSE(cached_probe_finding(cached, "", {}));      // 1 -> 0 untested: no bill
    EXPECT_FALSE(cached_probe_finding(cached, "", {1, 2}));  // no pair of these GPUs
}

// Without --probe the cache stands in: its loss makes the verdict problems too.
TEST(DoctorCachedProbe, ACachedLossMakesTheVerdictProblemsAndAFreshProbeSupersedesIt) {
    DoctorInput input = nvlinked_pair_with_driver();
    input.cached_probe = result_of(ProbeOutcome::fail, {{0, 1, PairVerdict::data_lost}});
    EXPECT_EQ(diagnose(input).verdict, Verdict::problems);
    input.probe = result_of(ProbeOutcome::pass, {{0, 1, PairVerdict::ok}, {1, 0, PairVerdict::ok}});
    const auto fresh = diagnose(input);
    EXPECT_EQ(fresh.verdict, Verdict::healthy);
    for (const auto& f : fresh.findings) {
        EXPECT_NE(f.id(), "cached_probe_data_lost");
    }
}

}  // namespace
}  // namespace peergate::policy::doctor

namespace peergate::policy::doctor {
namespace {

// Issue 52: after the probe proved the loss, the headline is that loss, and the IOMMU finding
// that predicted it no longer sends the reader to run the probe.
TEST(DoctorHeadline, AProvenLossLeadsTheHypothesisThatPredictedIt) {
    DoctorInput input;
    input.parts.push_back(PartStatus{.what = "NVML library", .found = true});
    input.discovery.topology = test::pcie_box(2, "NVIDIA RTX 6000 Ada Generation", "NODE");
    input.host.iommu = model::IommuMode::translating;
    input.host.hypervisor = false;
    for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
        input.pairs.push_back(PairLayers{.src = src,
                                         .dst = dst,
                                         .label = "NODE",
                                         .nvml = {"OK", "OK", "NS", "NS", "OK"},
                                         .cuda_can_access_peer = true});
    }
    input.cached_probe =
        result_of(ProbeOutcome::fail, {{0, 1, PairVerdict::data_lost}, {1, 0, PairVerdict::ok}});
    const auto report = diagnose(input);
    ASSERT_FALSE(report.findings.empty());
    EXPECT_EQ(report.findings.front().id(), "cached_probe_data_lost");
    const auto iommu = std::find_if(report.findings.begin(), report.findings.end(), [](auto& f) {
        return f.code == model::FindingCode::pcie_p2p_under_translating_iommu;
    });
    ASSERT_NE(iommu, report.findings.end());
    EXPECT_EQ(iommu->remedy.find("run 'peergate probe'"), std::string::npos) << iommu->remedy;
    input.cached_probe.reset();
    const auto before = diagnose(input);
    EXPECT_EQ(before.findings.front().id(), "pcie_p2p_under_translating_iommu");
    EXPECT_NE(before.findings.front().remedy.find("run 'peergate probe'"), std::string::npos);
}

// Issue 52: an IOMMU that translates where cpuinfo could not be read is "may be bare metal",
// never "bare-metal Linux".
TEST(DoctorHeadline, AnUnknownHypervisorIsNotCalledBareMetal) {
    DoctorInput input;
    input.parts.push_back(PartStatus{.what = "NVML library", .found = true});
    input.discovery.topology = test::pcie_box(2, "NVIDIA L40S", "NODE");
    input.host.iommu = model::IommuMode::translating;
    for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
        input.pairs.push_back(PairLayers{.src = src, .dst = dst, .label = "NODE"});
    }
    const auto report = diagnose(input);
    ASSERT_FALSE(report.findings.empty());
    const auto& f = report.findings.front();
    EXPECT_EQ(f.code, model::FindingCode::pcie_p2p_under_translating_iommu);
    EXPECT_EQ(f.message.find("bare-metal Linux"), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("whether this is bare metal is unknown"), std::string::npos);
}

}  // namespace
}  // namespace peergate::policy::doctor
