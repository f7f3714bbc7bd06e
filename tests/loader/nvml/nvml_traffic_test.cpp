// SPDX-License-Identifier: Apache-2.0
// watch's sampler through the real dlopen path against the simulated NVML: the links it
// watches, the NVLink data and PCIe counters the machine file's traffic drives, a driver
// without them, one that answers every link with the GPU's sum, one that stops answering.
#include "loader/nvml/nvml_loader_support.hpp"
#include "pipeline/watch_sampler.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace peergate {
namespace {

using namespace testing_nvml;  // NOLINT(google-build-using-namespace)

pipeline::SampledTraffic sample(const std::string& machine_path,
                                std::chrono::milliseconds watchdog = std::chrono::seconds(10),
                                std::vector<int> gpus = {}) {
    ::setenv("PEERGATE_SIM_MACHINE", machine_path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    auto sampler = pipeline::TrafficSampler::start(
        pipeline::SamplerOptions{.libraries = {PEERGATE_SIM_NVML},
                                 .host_root = "/nonexistent-host-root",
                                 .gpus = std::move(gpus),
                                 .interval = std::chrono::milliseconds(20),
                                 .watchdog = watchdog});
    EXPECT_TRUE(sampler.has_value());
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    return sampler ? sampler->stop() : pipeline::SampledTraffic{};
}

TEST(NvmlTraffic, EachLinkCountsItsShareOfTheFlowsInKib) {
    const auto s = sample(fixture("watch-nvlink-2x"));
    ASSERT_TRUE(s.started) << s.started.error().message;
    ASSERT_EQ(s.gpus.size(), 2U);
    ASSERT_EQ(s.gpus[0].links.size(), 4U);
    EXPECT_EQ(s.gpus[0].links[0].peer, 1);
    EXPECT_FALSE(s.gpus[0].links[0].to_switch);
    ASSERT_GE(s.rounds.size(), 3U);
    const auto& first = s.rounds.front().gpus[0];
    const auto& last = s.rounds.back().gpus[0];
    ASSERT_TRUE(first.links[0].tx_kib && last.links[0].tx_kib);
    EXPECT_GT(*last.links[0].tx_kib, *first.links[0].tx_kib);
    // The sum over every link (scopeId UINT_MAX) is four links' worth.
    ASSERT_TRUE(last.sum_tx_kib);
    EXPECT_NEAR(static_cast<double>(*last.sum_tx_kib),
                4.0 * static_cast<double>(*last.links[0].tx_kib),
                4.0);
    EXPECT_EQ(last.pcie_tx_kb_per_s, 0U);
    EXPECT_TRUE(last.nvlink_missing.empty());
    EXPECT_GT(s.cpu_seconds, 0.0);
    EXPECT_EQ(s.links_before.size(), 2U);
    EXPECT_EQ(s.links_after.size(), 2U);
}

TEST(NvmlTraffic, PcieFlowsAnswerAsKbPerSecond) {
    const auto s = sample(fixture("watch-pcie-only-2x"));
    ASSERT_TRUE(s.started);
    ASSERT_FALSE(s.rounds.empty());
    // 10 GB/s = 10e9 / 1024 KB/s.
    EXPECT_EQ(s.rounds.back().gpus[0].pcie_tx_kb_per_s, 9765625U);
    EXPECT_EQ(s.rounds.back().gpus[1].pcie_rx_kb_per_s, 9765625U);
    EXPECT_EQ(s.rounds.back().gpus[0].links[0].tx_kib, 0U);
}

TEST(NvmlTraffic, ADriverWithoutTheCountersSaysWhy) {
    const auto s = sample(fixture("watch-no-counters-2x"));
    ASSERT_TRUE(s.started);
    ASSERT_FALSE(s.rounds.empty());
    const auto& gpu = s.rounds.back().gpus[0];
    EXPECT_FALSE(gpu.links.at(0).tx_kib.has_value());
    EXPECT_NE(gpu.nvlink_missing.find("3 (Not Supported)"), std::string::npos)
        << gpu.nvlink_missing;
    EXPECT_FALSE(gpu.pcie_tx_kb_per_s.has_value());
    EXPECT_EQ(gpu.pcie_missing, "nvmlDeviceGetPcieThroughput failed: 3 (Not Supported)");
}

TEST(NvmlTraffic, AnAggregatingDriverAnswersTheSumForEveryLink) {
    const auto s = sample(fixture("watch-summed-2x"));
    ASSERT_TRUE(s.started);
    const auto& gpu = s.rounds.back().gpus[0];
    for (const auto& link : gpu.links) {
        EXPECT_EQ(link.tx_kib, gpu.sum_tx_kib);
    }
}

TEST(NvmlTraffic, NvswitchLinksEndAtTheSwitchAndAnUnknownGpuIsRefused) {
    const auto s = sample(fixture("watch-nvswitch-4x"), std::chrono::seconds(10), {3, 0});
    ASSERT_TRUE(s.started);
    ASSERT_EQ(s.gpus.size(), 2U);
    EXPECT_EQ(s.gpus[0].index, 3) << "in the order asked";
    EXPECT_TRUE(s.gpus[0].links.at(0).to_switch);
    EXPECT_FALSE(s.gpus[0].links.at(0).peer.has_value());
    const auto none = sample(fixture("watch-nvswitch-4x"), std::chrono::seconds(10), {0, 9});
    ASSERT_FALSE(none.started);
    EXPECT_EQ(none.started.error().message, "NVML lists GPUs 0,1,2,3; cannot watch GPUs 0,9");
}

TEST(NvmlTraffic, ADriverThatStopsAnsweringLeavesTheRoundsReadAndSaysSo) {
    const auto s = sample(fixture("watch-hang-2x"), std::chrono::milliseconds(300));
    EXPECT_TRUE(s.rounds.empty()) << "the first round hangs in its PCIe call";
    EXPECT_EQ(s.stopped, "NVML did not answer within 300 ms");
}

TEST(NvmlTraffic, NoLibraryIsAnErrorNamingIt) {
    ::setenv("PEERGATE_SIM_MACHINE", fixture("watch-nvlink-2x").c_str(), 1);  // NOLINT
    auto sampler = pipeline::TrafficSampler::start(
        pipeline::SamplerOptions{.libraries = {"/nonexistent/libnvidia-ml.so.1"}});
    ASSERT_TRUE(sampler.has_value());
    const auto s = sampler->stop();
    ASSERT_FALSE(s.started);
    EXPECT_NE(s.started.error().message.find("NVML is not available"), std::string::npos);
}

}  // namespace
}  // namespace peergate
