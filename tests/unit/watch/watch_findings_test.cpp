// SPDX-License-Identifier: Apache-2.0
// watch's findings (policy/watch/watch_findings.hpp, docs/watch.md "Findings").
#include "policy/watch/watch_findings.hpp"

#include "watch_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace peergate::policy::watch {
namespace {

using namespace watch_test;  // NOLINT(google-build-using-namespace)

std::vector<std::string> codes(const std::vector<model::Finding>& findings) {
    std::vector<std::string> out;
    for (const auto& f : findings) {
        out.push_back(f.id());
    }
    return out;
}

const model::Finding* with_code(const std::vector<model::Finding>& findings,
                                const std::string& code) {
    const auto it = std::find_if(
        findings.begin(), findings.end(), [&](const auto& f) { return f.id() == code; });
    return it == findings.end() ? nullptr : &*it;
}

PairVerdict pcie_pair(NvlinkRoute route) {
    return PairVerdict{
        .a = 0, .b = 1, .route = route, .verdict = PathVerdict::pcie, .reason = "PCIe: ..."};
}

TEST(WatchFindings, P2pAllowedOnNvlinkAndUnusedIsAWarningNamingThePair) {
    const TrafficTotals totals{.gpus = {gpu_moving(0, 0, kGiB), gpu_moving(1, 0, kGiB)}};
    const auto findings = watch_findings(
        totals, {pcie_pair(NvlinkRoute::direct)}, WatchFacts{.gated = true, .p2p_allowed = true});
    const auto* unused = with_code(findings, "watch_p2p_unused");
    ASSERT_NE(unused, nullptr);
    EXPECT_EQ(unused->severity, model::Severity::warning);
    EXPECT_EQ(unused->gpus, (std::vector<int>{0, 1}));
    EXPECT_NE(unused->remedy.find("NCCL_P2P_DISABLE"), std::string::npos);
    // Not given P2P, not gated, or no NVLink between them: nothing unused.
    for (const auto& facts : {WatchFacts{.gated = true, .p2p_allowed = false}, WatchFacts{}}) {
        EXPECT_EQ(with_code(watch_findings(totals, {pcie_pair(NvlinkRoute::direct)}, facts),
                            "watch_p2p_unused"),
                  nullptr);
    }
    EXPECT_EQ(with_code(watch_findings(totals,
                                       {pcie_pair(NvlinkRoute::none)},
                                       WatchFacts{.gated = true, .p2p_allowed = true}),
                        "watch_p2p_unused"),
              nullptr);
}

TEST(WatchFindings, AGpuThatMovedNothingWhileItsPeersDidIsNamed) {
    const TrafficTotals totals{
        .gpus = {gpu_moving(0, kGiB, 0), gpu_moving(1, kGiB, 0), gpu_moving(2, 0, 0)}};
    const auto findings = watch_findings(totals, {}, WatchFacts{});
    ASSERT_EQ(codes(findings), std::vector<std::string>{"watch_gpu_idle"});
    EXPECT_EQ(findings[0].gpus, std::vector<int>{2});
    EXPECT_NE(findings[0].message.find("while GPUs 0,1 did"), std::string::npos)
        << findings[0].message;
    // All idle: nothing stands out. Counters unknown: it cannot be said to be idle.
    const TrafficTotals quiet{.gpus = {gpu_moving(0, 0, 0), gpu_moving(1, 0, 0)}};
    EXPECT_TRUE(watch_findings(quiet, {}, WatchFacts{}).empty());
    auto blind = gpu_moving(2, 0, 0);
    blind.pcie_known = false;
    blind.pcie_reason = "Not Supported";
    const TrafficTotals unknown{.gpus = {gpu_moving(0, kGiB, 0), blind}};
    EXPECT_EQ(codes(watch_findings(unknown, {}, WatchFacts{})),
              std::vector<std::string>{"watch_counters_unavailable"});
}

TEST(WatchFindings, NvlinkErrorsThatGrewWhileTheJobRanSayWhatRan) {
    policy::doctor::GpuLinks before{.gpu = 1, .name = "NVIDIA H100", .slots = 18};
    before.errors.push_back(model::LinkErrors{
        .link = 2, .counts = model::NvlinkErrorCounts::clean(model::NvlinkCounterSet::dl)});
    auto after = before;
    after.errors[0].counts.value[0] = 40;  // replays
    const auto findings = watch_findings(
        TrafficTotals{}, {}, WatchFacts{.links_before = {before}, .links_after = {after}});
    const auto* grew = with_code(findings, "nvlink_errors_under_load");
    ASSERT_NE(grew, nullptr);
    EXPECT_TRUE(grew->message.starts_with("While the job ran, the NVLink error counters of GPU 1"))
        << grew->message;
    EXPECT_NE(grew->message.find("link 2: +40 replays"), std::string::npos);
}

TEST(WatchFindings, NvmlThatStoppedOrNeverAnsweredIsAWarning) {
    const TrafficTotals totals{.rounds = 3};
    const auto stopped = watch_findings(
        totals, {}, WatchFacts{.sampling_stopped = "NVML did not answer within 10 s"});
    ASSERT_EQ(codes(stopped), std::vector<std::string>{"watch_sampling_stopped"});
    EXPECT_NE(stopped[0].message.find("after 3 rounds (NVML did not answer within 10 s)"),
              std::string::npos);
    const auto none =
        watch_findings(totals, {}, WatchFacts{.sampling_error = "NVML is not available: x"});
    ASSERT_EQ(codes(none), std::vector<std::string>{"watch_unavailable"});
}

TEST(WatchFindings, SortedBySeverity) {
    auto blind = gpu_moving(0, 0, 0);
    blind.pcie_known = false;
    const TrafficTotals totals{.rounds = 2,
                               .gpus = {blind, gpu_moving(1, kGiB, kGiB), gpu_moving(2, 0, 0)}};
    const auto findings = watch_findings(totals, {}, WatchFacts{.sampling_stopped = "x"});
    EXPECT_EQ(codes(findings),
              (std::vector<std::string>{
                  "watch_sampling_stopped", "watch_gpu_idle", "watch_counters_unavailable"}));
}

}  // namespace
}  // namespace peergate::policy::watch
