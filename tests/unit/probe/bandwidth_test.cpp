// SPDX-License-Identifier: Apache-2.0
#include "engine/bandwidth.hpp"

#include "engine/device_map.hpp"
#include "support/pci_builders.hpp"
#include "unit/probe/fake_copy_engine.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using test::pci;

TEST(SampleStats, MedianMinMaxOfOddAndEvenCounts) {
    const auto odd = engine::summarize({3.0, 1.0, 2.0});
    EXPECT_DOUBLE_EQ(odd.median, 2.0);
    EXPECT_DOUBLE_EQ(odd.min, 1.0);
    EXPECT_DOUBLE_EQ(odd.max, 3.0);
    EXPECT_EQ(odd.samples, (std::vector<double>{3.0, 1.0, 2.0}));  // raw, in measured order
    EXPECT_DOUBLE_EQ(engine::summarize({4.0, 1.0, 2.0, 3.0}).median, 2.5);
    EXPECT_DOUBLE_EQ(engine::summarize({}).median, 0.0);
}

TEST(BenchPlan, RefusesZeroOrNegativeSizes) {
    for (const std::int64_t size : {0, -1}) {
        engine::BenchRequest request;
        request.size_mib = size;
        EXPECT_FALSE(engine::make_bench_plan(request).has_value()) << size;
    }
}

engine::BenchPlan bench_plan(std::vector<int> gpus, bool latency = false) {
    engine::BenchRequest request;
    request.gpus = std::move(gpus);
    request.size_mib = 1;
    request.latency = latency;
    return *engine::make_bench_plan(request);
}

TEST(Bench, FlagsPairsWhoseP2pIsSlowerThanStaged) {
    test::FakeCopyEngine e(2);
    e.rate_gbps = [](const engine::CopyJob& job) {
        return job.kind == engine::CopyKind::staged ? 12.0 : 1.6;
    };
    const auto r = engine::run_bench(e, bench_plan({0, 1}, true));
    ASSERT_EQ(r.pairs.size(), 2U);
    ASSERT_TRUE(r.pairs[0].p2p && r.pairs[0].staged && r.pairs[0].bidirectional &&
                r.pairs[0].latency);
    EXPECT_NEAR(r.pairs[0].p2p->median, 1.6e9, 1e3);
    EXPECT_NEAR(r.pairs[0].staged->median, 12e9, 1e3);
    EXPECT_NEAR(r.pairs[0].bidirectional->median, 3.2e9, 1e3);  // both directions counted
    EXPECT_TRUE(r.pairs[0].p2p_slower_than_staged());
    EXPECT_EQ(engine::bench_exit_status(r), 1);
    EXPECT_EQ(r.pairs[0].p2p->samples.size(), 5U);
    EXPECT_EQ(e.live_buffers(), 0);
}

TEST(Bench, FastP2pIsFine) {
    test::FakeCopyEngine e(2);
    e.rate_gbps = [](const engine::CopyJob& job) {
        return job.kind == engine::CopyKind::staged ? 12.0 : 90.0;
    };
    EXPECT_EQ(engine::bench_exit_status(engine::run_bench(e, bench_plan({0, 1}))), 0);
}

TEST(Bench, OneGpuMeasuresDeviceLocalAndHostCopies) {
    test::FakeCopyEngine e(1);
    const auto r = engine::run_bench(e, bench_plan({4}));
    EXPECT_TRUE(r.pairs.empty());
    ASSERT_EQ(r.devices.size(), 1U);
    EXPECT_EQ(r.devices[0].gpu, 4);
    EXPECT_TRUE(r.devices[0].device_local && r.devices[0].host_to_device &&
                r.devices[0].device_to_host);
    EXPECT_EQ(engine::bench_exit_status(r), 0);
}

TEST(Bench, NothingMeasuredIsExitTwo) {
    test::FakeCopyEngine e(2);
    e.fail_alloc_on = 0;
    const auto r = engine::run_bench(e, bench_plan({0, 1}));
    EXPECT_FALSE(r.pairs[0].error.empty());
    EXPECT_EQ(engine::bench_exit_status(r), 2);
}

TEST(DeviceMap, JoinsCudaDevicesToTopologyIndicesByBusId) {
    // CUDA ordinals in FASTEST_FIRST order differ from nvidia-smi's PCI order.
    const std::vector<engine::DeviceIdentity> cuda = {{0, "B", pci("0000:9A:00.0")},
                                                      {1, "A", pci("0000:1B:00.0")}};
    std::vector<model::Gpu> known(2);
    known[0].index = 0;
    known[0].pci = pci("00000000:1B:00.0");
    known[1].index = 1;
    known[1].pci = pci("00000000:9a:00.0");
    auto map = engine::map_devices(cuda, known);
    ASSERT_TRUE(map.has_value());
    EXPECT_EQ(map->source, "topology");
    ASSERT_EQ(map->devices.size(), 2U);
    EXPECT_EQ(map->devices[0].index, 0);
    EXPECT_EQ(map->devices[0].ordinal, 1);
    EXPECT_EQ(map->devices[1].ordinal, 0);
    auto chosen = engine::select_devices(*map, {1});
    ASSERT_TRUE(chosen.has_value());
    EXPECT_EQ(chosen->front().ordinal, 0);
    EXPECT_FALSE(engine::select_devices(*map, {2}).has_value());
}

TEST(DeviceMap, WithoutTopologyUsesPciBusOrder) {
    const std::vector<engine::DeviceIdentity> cuda = {{0, "B", pci("0000:9A:00.0")},
                                                      {1, "A", pci("0000:1B:00.0")}};
    auto map = engine::map_devices(cuda, {});
    ASSERT_TRUE(map.has_value());
    EXPECT_EQ(map->source, "pci-order");
    EXPECT_EQ(map->devices[0].ordinal, 1);
    EXPECT_EQ(map->devices[1].index, 1);
}

TEST(DeviceMap, ACudaDeviceMissingFromTheTopologyIsAnError) {
    const std::vector<engine::DeviceIdentity> cuda = {{0, "A", pci("0000:1B:00.0")}};
    std::vector<model::Gpu> known(1);
    known[0].pci = pci("00000000:1C:00.0");
    EXPECT_FALSE(engine::map_devices(cuda, known).has_value());
}

}  // namespace
}  // namespace peergate
