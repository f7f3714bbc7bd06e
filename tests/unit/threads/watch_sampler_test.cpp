// SPDX-License-Identifier: Apache-2.0
// watch's sampler worker against the simulated NVML, for ThreadSanitizer: rounds published
// while the caller waits for the first one and stops, a stop before the worker has opened
// NVML, and a worker abandoned inside a hung driver while the caller moves on.
#include "pipeline/watch_sampler.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace peergate {
namespace {

using namespace std::chrono_literals;

pipeline::SamplerOptions sampling(const std::string& machine, std::chrono::milliseconds watchdog) {
    const std::string path = std::string(PEERGATE_TEST_FIXTURES) + "/machines/" + machine + ".json";
    ::setenv("PEERGATE_SIM_MACHINE", path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    return pipeline::SamplerOptions{.libraries = {PEERGATE_SIM_NVML},
                                    .host_root = "/nonexistent-host-root",
                                    .interval = 1ms,
                                    .watchdog = watchdog};
}

TEST(WatchSampler, RoundsPublishedWhileTheCallerWaitsAndStops) {
    auto sampler = pipeline::TrafficSampler::start(sampling("watch-nvswitch-4x", 10s));
    ASSERT_TRUE(sampler.has_value());
    std::thread waiter([&] { EXPECT_TRUE(sampler->wait_for_first_round(10s)); });
    std::this_thread::sleep_for(50ms);
    waiter.join();
    const auto sampled = sampler->stop();
    ASSERT_TRUE(sampled.started) << sampled.started.error().message;
    EXPECT_GE(sampled.rounds.size(), 2U) << "the first round and the one after the stop";
    EXPECT_EQ(sampled.gpus.size(), 4U);
    EXPECT_FALSE(sampled.links_after.empty());
}

TEST(WatchSampler, AStopBeforeTheWorkerOpenedNvmlStillEndsWithTwoRounds) {
    auto sampler = pipeline::TrafficSampler::start(sampling("watch-nvlink-2x", 10s));
    ASSERT_TRUE(sampler.has_value());
    const auto sampled = sampler->stop();
    ASSERT_TRUE(sampled.started) << sampled.started.error().message;
    EXPECT_EQ(sampled.rounds.size(), 2U);
}

TEST(WatchSampler, AHungDriverIsLeftBehindAndTheCallerMovesOn) {
    auto sampler = pipeline::TrafficSampler::start(sampling("watch-hang-2x", 200ms));
    ASSERT_TRUE(sampler.has_value());
    EXPECT_FALSE(sampler->wait_for_first_round(100ms));
    const auto sampled = sampler->stop();
    EXPECT_EQ(sampled.stopped, "NVML did not answer within 200 ms");
    EXPECT_EQ(sampled.gpus.size(), 2U) << "what the worker published before it hung";
}

}  // namespace
}  // namespace peergate
