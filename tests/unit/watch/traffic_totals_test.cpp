// SPDX-License-Identifier: Apache-2.0
// From counter rounds to bytes (policy/watch/traffic_totals.hpp): per link and far end,
// wraps, resets, a driver that answers every link with the GPU's sum, PCIe from its rates.
#include "policy/watch/traffic_totals.hpp"

#include "watch_support.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::watch {
namespace {

using namespace watch_test;  // NOLINT(google-build-using-namespace)

model::CounterRound round_at(double at, std::vector<model::GpuCounterReading> gpus) {
    return model::CounterRound{.at_s = at, .gpus = std::move(gpus)};
}

TEST(TrafficTotals, EachLinkAndFarEndCountsItsStepsAndPeaks) {
    const std::vector gpus{gpu_with_links(0, 2, 1), gpu_with_links(1, 2, 0)};
    // One GiB a link per second for two seconds, faster in the second.
    const std::vector rounds{
        round_at(0.0, {reading(2, 0, 0), reading(2, 0, 0)}),
        round_at(1.0, {reading(2, kKibPerGiB, 0), reading(2, 0, kKibPerGiB)}),
        round_at(2.0, {reading(2, 3 * kKibPerGiB, 0), reading(2, 0, 3 * kKibPerGiB)})};
    const auto totals = total_traffic(gpus, rounds);
    ASSERT_EQ(totals.gpus.size(), 2U);
    EXPECT_EQ(totals.rounds, 3);
    EXPECT_DOUBLE_EQ(totals.seconds, 2.0);
    const auto& a = totals.gpus[0];
    EXPECT_EQ(a.nvlink, NvlinkCounting::per_link);
    EXPECT_EQ(a.links.at(0).tx.bytes, 3 * kGiB);
    EXPECT_DOUBLE_EQ(a.links.at(0).tx.peak_bytes_per_s, 2.0 * static_cast<double>(kGiB));
    EXPECT_EQ(a.nvlink_tx.bytes, 6 * kGiB);
    ASSERT_EQ(a.toward.size(), 1U);
    EXPECT_EQ(a.toward[0].peer, 1);
    EXPECT_EQ(a.toward[0].links, 2);
    EXPECT_EQ(a.toward[0].tx.bytes, 6 * kGiB);
    EXPECT_DOUBLE_EQ(a.toward[0].tx.peak_bytes_per_s, 4.0 * static_cast<double>(kGiB));
    EXPECT_EQ(totals.gpus[1].nvlink_rx.bytes, 6 * kGiB);
}

TEST(TrafficTotals, ACounterThatWrapsAt2To64IsCountedAcrossTheWrap) {
    const std::vector gpus{gpu_with_links(0, 1, 1)};
    const std::uint64_t near_top = ~std::uint64_t{0} - kKibPerGiB + 1;  // 1 GiB short of 2^64
    const std::vector rounds{round_at(0.0, {reading(1, near_top, 0)}),
                             round_at(1.0, {reading(1, kKibPerGiB, 0)})};  // wrapped, 2 GiB on
    const auto totals = total_traffic(gpus, rounds);
    EXPECT_EQ(totals.gpus.at(0).nvlink_tx.bytes, 2 * kGiB);
    EXPECT_EQ(totals.gpus.at(0).counter_resets, 0);
}

TEST(TrafficTotals, ACounterThatFallsIsAResetAndThatIntervalIsNotCounted) {
    const std::vector gpus{gpu_with_links(0, 1, 1)};
    const std::vector rounds{round_at(0.0, {reading(1, 5 * kKibPerGiB, 0)}),
                             round_at(1.0, {reading(1, 10, 0)}),  // the GPU was reset
                             round_at(2.0, {reading(1, 10 + kKibPerGiB, 0)})};
    const auto totals = total_traffic(gpus, rounds);
    EXPECT_EQ(totals.gpus.at(0).nvlink_tx.bytes, kGiB);
    EXPECT_EQ(totals.gpus.at(0).counter_resets, 1);
}

TEST(TrafficTotals, LinksThatAllAnswerTheSumAreNotToldApart) {
    const std::vector gpus{gpu_with_links(0, 4, 1)};
    auto summed = [](std::uint64_t kib) {
        auto r = reading(4, kib, kib);
        r.sum_tx_kib = kib;  // every link and the sum say the same
        r.sum_rx_kib = kib;
        return r;
    };
    const std::vector rounds{round_at(0.0, {summed(0)}), round_at(1.0, {summed(kKibPerGiB)})};
    const auto totals = total_traffic(gpus, rounds);
    const auto& gpu = totals.gpus.at(0);
    EXPECT_EQ(gpu.nvlink, NvlinkCounting::summed_only);
    EXPECT_EQ(gpu.nvlink_tx.bytes, kGiB) << "the sum once, not once per link";
    EXPECT_TRUE(gpu.links.empty());
    ASSERT_EQ(gpu.toward.size(), 1U) << "every link ends at GPU 1, so the sum went there";
    EXPECT_EQ(gpu.toward[0].tx.bytes, kGiB);
}

// nvitop#87 showed 12 links of one GPU answering the same rate to within a few KiB: reads
// a moment apart of one GPU-wide count. Within 1 % of the sum is the sum.
TEST(TrafficTotals, LinksWithinOnePercentOfTheSumAreTheSum) {
    const std::vector gpus{gpu_with_links(0, 3, 1)};
    auto almost = [](std::uint64_t kib) {
        auto r = reading(3, kib, kib);
        r.links[1].tx_kib = kib + kib / 500;  // read a moment later
        r.sum_tx_kib = kib;
        return r;
    };
    const std::vector rounds{round_at(0.0, {almost(0)}), round_at(1.0, {almost(kKibPerGiB)})};
    EXPECT_EQ(total_traffic(gpus, rounds).gpus.at(0).nvlink, NvlinkCounting::summed_only);
}

TEST(TrafficTotals, WithoutTheSumLinksAreTakenAsTheirOwn) {
    const std::vector gpus{gpu_with_links(0, 2, 1)};
    auto no_sum = [](std::uint64_t kib) {
        auto r = reading(2, kib, kib);
        r.sum_tx_kib.reset();
        r.sum_rx_kib.reset();
        return r;
    };
    const std::vector rounds{round_at(0.0, {no_sum(0)}), round_at(1.0, {no_sum(kKibPerGiB)})};
    EXPECT_EQ(total_traffic(gpus, rounds).gpus.at(0).nvlink, NvlinkCounting::per_link);
}

TEST(TrafficTotals, EvenlySpreadTrafficWhoseSumDiffersIsStillPerLink) {
    const std::vector gpus{gpu_with_links(0, 4, 1)};
    const std::vector rounds{round_at(0.0, {reading(4, 0, 0)}),
                             round_at(1.0, {reading(4, kKibPerGiB, kKibPerGiB)})};
    const auto totals = total_traffic(gpus, rounds);
    EXPECT_EQ(totals.gpus.at(0).nvlink, NvlinkCounting::per_link);
    EXPECT_EQ(totals.gpus.at(0).nvlink_tx.bytes, 4 * kGiB);
}

TEST(TrafficTotals, NoAnsweredCounterIsUnavailableWithTheDriversReason) {
    const std::vector gpus{gpu_with_links(0, 2, 1), gpu_with_links(1, 0, std::nullopt)};
    model::GpuCounterReading silent;
    silent.nvlink_missing = "nvmlDeviceGetFieldValues failed: 3 (Not Supported)";
    silent.pcie_tx_kb_per_s = 0;
    silent.pcie_rx_kb_per_s = 0;
    const std::vector rounds{round_at(0.0, {silent, reading(0, 0, 0)}),
                             round_at(1.0, {silent, reading(0, 0, 0)})};
    const auto totals = total_traffic(gpus, rounds);
    EXPECT_EQ(totals.gpus.at(0).nvlink, NvlinkCounting::unavailable);
    EXPECT_EQ(totals.gpus.at(0).nvlink_reason, silent.nvlink_missing);
    EXPECT_EQ(totals.gpus.at(1).nvlink_reason, "no active NVLink");
    EXPECT_FALSE(totals.gpus.at(1).has_nvlink);
}

TEST(TrafficTotals, PcieBytesAreTheMeanOfEachIntervalsTwoRates) {
    const std::vector gpus{gpu_with_links(0, 0, std::nullopt)};
    const std::vector rounds{round_at(0.0, {reading(0, 0, 0, 1000)}),
                             round_at(2.0, {reading(0, 0, 0, 3000)})};
    const auto totals = total_traffic(gpus, rounds);
    const auto& gpu = totals.gpus.at(0);
    EXPECT_TRUE(gpu.pcie_known);
    EXPECT_EQ(gpu.pcie_tx.bytes, 2000U * 1024U * 2U);
    EXPECT_DOUBLE_EQ(gpu.pcie_tx.peak_bytes_per_s, 3000.0 * 1024.0);
}

TEST(TrafficTotals, PcieThatNeverAnsweredIsUnknownWithItsReason) {
    const std::vector gpus{gpu_with_links(0, 0, std::nullopt)};
    const std::vector rounds{round_at(0.0, {reading(0, 0, 0, std::nullopt)}),
                             round_at(1.0, {reading(0, 0, 0, std::nullopt)})};
    const auto totals = total_traffic(gpus, rounds);
    EXPECT_FALSE(totals.gpus.at(0).pcie_known);
    EXPECT_NE(totals.gpus.at(0).pcie_reason.find("Not Supported"), std::string::npos);
}

TEST(TrafficTotals, OneRoundCountsNothingAndARoundMissingAGpuIsRefused) {
    const std::vector gpus{gpu_with_links(0, 1, 1)};
    EXPECT_EQ(total_traffic(gpus, {round_at(0.0, {reading(1, 7, 7)})}).gpus.at(0).nvlink_bytes(),
              0U);
    EXPECT_TRUE(total_traffic(gpus, {round_at(0.0, {})}).gpus.empty());
}

}  // namespace
}  // namespace peergate::policy::watch
