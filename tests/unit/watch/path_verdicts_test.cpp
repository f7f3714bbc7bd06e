// SPDX-License-Identifier: Apache-2.0
// One verdict per pair of watched GPUs (policy/watch/path_verdicts.hpp, docs/watch.md
// "Verdicts"): nvlink, pcie, idle, or unknown with the reason.
#include "policy/watch/path_verdicts.hpp"

#include "watch_support.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::watch {
namespace {

using namespace watch_test;  // NOLINT(google-build-using-namespace)

GpuTotals moved(int index, std::uint64_t nvlink, std::uint64_t pcie, std::optional<int> peer) {
    GpuTotals gpu = gpu_moving(index, nvlink, pcie);
    if (peer) {
        PeerTotals end{.peer = peer, .to_switch = false, .links = 4};
        end.tx.bytes = nvlink;
        gpu.toward.push_back(end);
    } else {
        gpu.toward.push_back(PeerTotals{.peer = std::nullopt, .to_switch = true, .links = 18});
        gpu.toward.back().tx.bytes = nvlink;
    }
    return gpu;
}

PairVerdict one_pair(const std::vector<model::WatchedGpu>& gpus, std::vector<GpuTotals> each) {
    TrafficTotals totals{.seconds = 1.0, .rounds = 2, .gpus = std::move(each)};
    const auto verdicts = judge_pairs(gpus, totals);
    EXPECT_EQ(verdicts.size(), 1U);
    return verdicts.empty() ? PairVerdict{} : verdicts.front();
}

const std::vector<model::WatchedGpu> kDirect{gpu_with_links(0, 4, 1), gpu_with_links(1, 4, 0)};
const std::vector<model::WatchedGpu> kSwitched{gpu_with_links(0, 18, std::nullopt, true),
                                               gpu_with_links(1, 18, std::nullopt, true)};
const std::vector<model::WatchedGpu> kPcie{gpu_with_links(0, 0, std::nullopt),
                                           gpu_with_links(1, 0, std::nullopt)};

TEST(PathVerdicts, BytesOnTheLinksBetweenThemAreNvlink) {
    const auto pair = one_pair(kDirect, {moved(0, 5 * kGiB, 0, 1), moved(1, 5 * kGiB, 0, 0)});
    EXPECT_EQ(pair.route, NvlinkRoute::direct);
    EXPECT_EQ(pair.verdict, PathVerdict::nvlink);
    EXPECT_EQ(pair.nvlink_bytes, 5 * kGiB);
    EXPECT_NE(pair.reason.find("over the NVLinks between them"), std::string::npos) << pair.reason;
}

TEST(PathVerdicts, ThroughNvswitchesBothGpusMovingIsNvlinkSaidToBeInferred) {
    const auto pair =
        one_pair(kSwitched, {moved(0, kGiB, 0, std::nullopt), moved(1, kGiB, 0, std::nullopt)});
    EXPECT_EQ(pair.route, NvlinkRoute::nvswitch);
    EXPECT_EQ(pair.verdict, PathVerdict::nvlink);
    EXPECT_FALSE(pair.nvlink_bytes.has_value());
    EXPECT_NE(pair.reason.find("not counted"), std::string::npos) << pair.reason;
    // One of them silent: the pair did not talk over NVLink.
    const auto half =
        one_pair(kSwitched, {moved(0, kGiB, 0, std::nullopt), moved(1, 0, 0, std::nullopt)});
    EXPECT_EQ(half.verdict, PathVerdict::idle);
}

TEST(PathVerdicts, NvlinkedPairWhoseDataWentOverPcieIsPcie) {
    const auto pair = one_pair(kDirect, {moved(0, 0, kGiB, 1), moved(1, 0, kGiB, 0)});
    EXPECT_EQ(pair.verdict, PathVerdict::pcie);
    EXPECT_NE(pair.reason.find("PCIe: GPU 0 1.1 GB"), std::string::npos) << pair.reason;
}

TEST(PathVerdicts, PairWithoutNvlinkIsPcieOrIdleByItsPcieBytes) {
    EXPECT_EQ(one_pair(kPcie, {moved(0, 0, kGiB, 1), moved(1, 0, kGiB, 0)}).verdict,
              PathVerdict::pcie);
    EXPECT_EQ(one_pair(kPcie, {moved(0, 0, kMovedPcieBytes - 1, 1), moved(1, 0, kGiB, 0)}).verdict,
              PathVerdict::idle);
    EXPECT_EQ(one_pair(kPcie, {moved(0, 0, 0, 1), moved(1, 0, 0, 0)}).route, NvlinkRoute::none);
}

TEST(PathVerdicts, BelowTheThresholdIsIdle) {
    const auto pair = one_pair(kDirect, {moved(0, kMovedNvlinkBytes - 1, 0, 1), moved(1, 0, 0, 0)});
    EXPECT_EQ(pair.verdict, PathVerdict::idle);
}

TEST(PathVerdicts, NvlinkCountersUnavailableOnAnNvlinkedPairIsUnknownEvenWithPcieIdle) {
    auto silent = moved(1, 0, 0, 0);
    silent.nvlink = NvlinkCounting::unavailable;
    silent.nvlink_reason = "nvmlDeviceGetFieldValues failed: 3 (Not Supported)";
    silent.toward.clear();
    const auto pair = one_pair(kDirect, {moved(0, kGiB, 0, 1), silent});
    EXPECT_EQ(pair.verdict, PathVerdict::unknown);
    EXPECT_NE(pair.reason.find("GPU 1 NVLink counters unavailable (nvmlDeviceGetFieldValues"),
              std::string::npos)
        << pair.reason;
}

TEST(PathVerdicts, PcieUnavailableWhereNvlinkSawNothingIsUnknown) {
    auto blind = moved(1, 0, 0, 0);
    blind.pcie_known = false;
    blind.pcie_reason = "nvmlDeviceGetPcieThroughput failed: 3 (Not Supported)";
    const auto pair = one_pair(kDirect, {moved(0, 0, 0, 1), blind});
    EXPECT_EQ(pair.verdict, PathVerdict::unknown);
    EXPECT_NE(pair.reason.find("GPU 1 PCIe counters unavailable"), std::string::npos)
        << pair.reason;
    // NVLink that moved needs no PCIe to say nvlink.
    EXPECT_EQ(one_pair(kDirect, {moved(0, kGiB, 0, 1), blind}).verdict, PathVerdict::nvlink);
}

TEST(PathVerdicts, EveryPairOnceInWatchedOrder) {
    const std::vector gpus{gpu_with_links(3, 0, std::nullopt),
                           gpu_with_links(1, 0, std::nullopt),
                           gpu_with_links(2, 0, std::nullopt)};
    TrafficTotals totals{.seconds = 1.0,
                         .rounds = 2,
                         .gpus = {moved(3, 0, 0, 1), moved(1, 0, 0, 3), moved(2, 0, 0, 1)}};
    const auto verdicts = judge_pairs(gpus, totals);
    ASSERT_EQ(verdicts.size(), 3U);
    EXPECT_EQ(std::make_pair(verdicts[0].a, verdicts[0].b), std::make_pair(3, 1));
    EXPECT_EQ(std::make_pair(verdicts[2].a, verdicts[2].b), std::make_pair(1, 2));
    EXPECT_TRUE(judge_pairs(gpus, TrafficTotals{}).empty()) << "totals of other GPUs";
}

}  // namespace
}  // namespace peergate::policy::watch
