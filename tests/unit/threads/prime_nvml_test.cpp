// SPDX-License-Identifier: Apache-2.0
// prime() and topology() against the simulated NVML: a warm-up publishes the NVSwitch
// matrix, and a hung driver neither blocks prime() nor publishes anything.
#include "sources/discovery/topology_cache.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace peergate {
namespace {

using namespace std::chrono_literals;

TopologyConfig simulated(const std::string& machine) {
    const std::string path = std::string(PEERGATE_TEST_FIXTURES) + "/machines/" + machine + ".json";
    ::setenv("PEERGATE_SIM_MACHINE", path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    TopologyConfig config;
    config.seams.nvml_libraries = {PEERGATE_SIM_NVML};
    config.seams.nvidia_smi = "/nonexistent/nvidia-smi";  // prime must never need it
    config.request.nvml_watchdog = 300ms;
    return config;
}

TEST(PrimeNvml, WarmUpPublishesTheNvswitchMatrix) {
    TopologyCache cache;
    EXPECT_EQ(cache.prime(simulated("nvml-nvswitch-8x")), PrimeOutcome::started);
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!cache.idle() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(1ms);
    }
    ASSERT_TRUE(cache.published());
    EXPECT_TRUE(cache.published()->topology->uniformly_nvlinked());
    EXPECT_EQ(cache.published()->topology->matrix[2][5].to_token(), "NV18");
}

TEST(PrimeNvml, ProcessWideTopologyIsCached) {
    const auto config = simulated("nvml-dgx1-v100");
    const auto first = topology(config);
    ASSERT_TRUE(first.topology) << first.reason;
    EXPECT_EQ(topology(config).topology, first.topology);
    EXPECT_EQ(first.topology->matrix[0][3].to_token(), "NV2");
}

}  // namespace
}  // namespace peergate
