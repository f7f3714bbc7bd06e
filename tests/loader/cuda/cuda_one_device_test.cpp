// SPDX-License-Identifier: Apache-2.0
// The copy engine's primitives on one device, against whichever CUDA driver
// PEERGATE_SELFTEST_CUDA_LIB names (the simulated one when unset). Every expectation here
// must hold on any working GPU, so the same tests run in CI against the simulated driver
// and on a machine with a real GPU against libcuda.so.1 (docs/PERFORMANCE.md, "On a real
// H200"). That is how the hand-written PTX kernels are checked on hardware: the probe
// itself needs two GPUs, these need one.
#include "sources/cuda/cuda_copy_engine.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef PEERGATE_SIM_CUDA
#error "the loader tier needs the simulated CUDA driver (target peergate_sim_cuda)"
#endif

namespace peergate {
namespace {

namespace cuda = sources::cuda;
using engine::CopyKind;

constexpr std::chrono::milliseconds kTimeout{20000};

std::string driver_path() {
    if (const char* real = std::getenv("PEERGATE_SELFTEST_CUDA_LIB"); real != nullptr && *real) {
        return real;
    }
    ::setenv("PEERGATE_SIM_MACHINE",
             PEERGATE_TEST_FIXTURES "/machines/probe-intact-2x.json",
             1);  // NOLINT
    return PEERGATE_SIM_CUDA;
}

// Whole MiB from PEERGATE_SELFTEST_MIB (default 1), plus 12 bytes, so the element count is
// odd and no multiple of any block size: the kernels' last, partial stride is exercised.
std::size_t buffer_bytes() {
    const char* mib = std::getenv("PEERGATE_SELFTEST_MIB");
    const std::size_t whole = mib != nullptr ? std::strtoull(mib, nullptr, 10) : 1;
    return (whole << 20U) + 12U;
}

struct OneDevice {
    std::unique_ptr<cuda::CudaCopyEngine> engine;
    engine::BufferId source = -1;
    engine::BufferId target = -1;
    engine::StreamId stream = -1;
    std::uint64_t elements = 0;
};

OneDevice open_one_device(model::VerifySite site) {
    OneDevice d;
    auto driver = cuda::open_cuda_driver(driver_path(), "");
    EXPECT_TRUE(driver.has_value()) << driver.error().message;
    if (!driver) {
        return d;
    }
    auto engine = cuda::CudaCopyEngine::open(*driver, {.ordinals = {0}, .verify = site});
    EXPECT_TRUE(engine.has_value()) << engine.error().message;
    if (!engine) {
        return d;
    }
    d.engine = std::move(*engine);
    const std::size_t bytes = buffer_bytes();
    d.elements = bytes / 4U;
    auto source = d.engine->allocate(0, bytes);
    auto target = d.engine->allocate(0, bytes);
    auto stream = d.engine->create_stream(0);
    EXPECT_TRUE(source && target && stream);
    if (source && target && stream) {
        d.source = *source;
        d.target = *target;
        d.stream = *stream;
    }
    return d;
}

// Fills the source with `seed`'s pattern and the target with the sentinel, then copies
// source -> target on the device.
void fill_and_copy(OneDevice& d, std::uint32_t seed) {
    ASSERT_TRUE(d.engine->fill_pattern(d.source, seed, d.stream));
    ASSERT_TRUE(d.engine->fill_sentinel(d.target, d.stream));
    ASSERT_TRUE(d.engine->enqueue_copy(
        {.kind = CopyKind::peer, .dst = d.target, .src = d.source, .stream = d.stream}));
    auto synced = d.engine->synchronize(d.stream, kTimeout);
    ASSERT_TRUE(synced.has_value()) << synced.error().message;
}

engine::VerifyCounts verify(OneDevice& d, engine::BufferId buffer, std::uint32_t seed) {
    auto counts = d.engine->verify(buffer, seed, d.stream, kTimeout);
    EXPECT_TRUE(counts.has_value()) << counts.error().message;
    return counts ? *counts : engine::VerifyCounts{.dropped = ~0ULL};
}

class CudaOneDevice : public ::testing::TestWithParam<model::VerifySite> {};

TEST_P(CudaOneDevice, VerifiesWhereItWasAskedTo) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    EXPECT_EQ(d.engine->verify_site(), GetParam());
    EXPECT_EQ(d.engine->verify_note(), "");  // the PTX loaded: no fallback to the host
}

TEST_P(CudaOneDevice, ACopiedPatternIsIntactUnderItsOwnSeed) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    fill_and_copy(d, 0x1234567U);
    EXPECT_EQ(verify(d, d.source, 0x1234567U), engine::VerifyCounts{});
    EXPECT_EQ(verify(d, d.target, 0x1234567U), engine::VerifyCounts{});
}

// Seeds s and s+1 differ at every element (the pattern is index * odd + seed, and the
// sentinel's stand-in is never one apart from it), so every element is wrong, none dropped.
TEST_P(CudaOneDevice, EveryElementIsWrongUnderTheNextSeed) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    fill_and_copy(d, 77U);
    const auto counts = verify(d, d.target, 78U);
    EXPECT_EQ(counts.dropped, 0U);
    EXPECT_EQ(counts.wrong, d.elements);
    EXPECT_EQ(counts.first_bad_element, std::optional<std::uint64_t>{0});
}

TEST_P(CudaOneDevice, ACopyThatNeverRanLeavesEveryElementDropped) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    ASSERT_TRUE(d.engine->fill_sentinel(d.target, d.stream));
    const auto counts = verify(d, d.target, 5U);
    EXPECT_EQ(counts.dropped, d.elements);
    EXPECT_EQ(counts.wrong, 0U);
    EXPECT_EQ(counts.first_bad_element, std::optional<std::uint64_t>{0});
}

// A seed whose pattern hits the sentinel at some element: that element holds the
// stand-in on both sides (device fill, host or device compare), so the copy is intact.
TEST_P(CudaOneDevice, TheSentinelsStandInIsThePatternOnBothSides) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    const std::uint32_t hit_at = 1000U;
    const std::uint32_t seed = engine::kSentinelBits - hit_at * 0x9E3779B1U;
    ASSERT_EQ(engine::pattern_value(seed, hit_at), engine::kSentinelStandIn);
    fill_and_copy(d, seed);
    EXPECT_EQ(verify(d, d.target, seed), engine::VerifyCounts{});
}

TEST_P(CudaOneDevice, TimedCopiesReportPositiveSeconds) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    fill_and_copy(d, 9U);
    auto seconds = d.engine->measure(
        {{.kind = CopyKind::peer, .dst = d.target, .src = d.source, .stream = d.stream}},
        10,
        kTimeout);
    ASSERT_TRUE(seconds.has_value()) << seconds.error().message;
    ASSERT_EQ(seconds->size(), 1U);
    EXPECT_GT((*seconds)[0], 0.0);
    const double gbps = 10.0 * static_cast<double>(d.elements * 4U) / (*seconds)[0] / 1e9;
    RecordProperty("device_copy_gbps", std::to_string(gbps));
    std::printf("device-local copy of %llu bytes: %.1f GB/s\n",
                static_cast<unsigned long long>(d.elements * 4U),
                gbps);
}

// The peer paths' kernels (cuda_peer_ptx.cpp) on one device: the "peer" is the device itself,
// so what is checked here is the kernels, not a fabric; the probe tests the fabric.
TEST_P(CudaOneDevice, TheSmStoreAndLoadKernelsCopyThePatternIntact) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    EXPECT_EQ(d.engine->unsupported(model::ProbePath::sm_store, 0, 0), std::nullopt);
    for (const auto path : {model::ProbePath::sm_store, model::ProbePath::sm_load}) {
        const std::uint32_t seed = path == model::ProbePath::sm_store ? 301U : 302U;
        ASSERT_TRUE(d.engine->fill_pattern(d.source, seed, d.stream));
        ASSERT_TRUE(d.engine->fill_sentinel(d.target, d.stream));
        ASSERT_TRUE(d.engine->enqueue_transfer(
            {.path = path, .dst = d.target, .src = d.source, .stream = d.stream}));
        auto seconds = d.engine->synchronize(d.stream, kTimeout);
        ASSERT_TRUE(seconds.has_value()) << seconds.error().message;
        EXPECT_TRUE(seconds->has_value());
        EXPECT_EQ(verify(d, d.target, seed), engine::VerifyCounts{}) << model::to_string(path);
    }
}

struct Handshake {
    engine::BufferId flag = -1;
    engine::StreamId waiter = -1;
};

Handshake start_handshake(OneDevice& d, std::uint32_t seed, std::chrono::nanoseconds budget) {
    Handshake h;
    auto flag = d.engine->allocate(0, engine::kHandshakeFlagBytes);
    auto waiter = d.engine->create_stream(0);
    EXPECT_TRUE(flag && waiter);
    if (!flag || !waiter) {
        return h;
    }
    h = {*flag, *waiter};
    EXPECT_TRUE(d.engine->fill_pattern(d.source, seed, d.stream));
    EXPECT_TRUE(d.engine->fill_sentinel(d.target, d.stream));
    EXPECT_TRUE(d.engine->fill_sentinel(h.flag, d.stream));
    EXPECT_TRUE(d.engine->synchronize(d.stream, kTimeout).has_value());
    EXPECT_TRUE(d.engine->enqueue_transfer({.path = model::ProbePath::handshake,
                                            .dst = d.target,
                                            .src = d.source,
                                            .stream = d.stream,
                                            .wait_stream = h.waiter,
                                            .flag = h.flag,
                                            .seed = seed,
                                            .budget = budget}));
    return h;
}

// The waiter and the writer on two streams of one GPU: the waiter sees the flag, then the
// whole payload, within its budget.
TEST_P(CudaOneDevice, TheHandshakeSeesItsFlagAndAnIntactPayload) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    const auto h = start_handshake(d, 401U, std::chrono::seconds(2));
    auto seconds = d.engine->synchronize(h.waiter, kTimeout);
    ASSERT_TRUE(seconds.has_value()) << seconds.error().message;
    ASSERT_TRUE(d.engine->synchronize(d.stream, kTimeout).has_value());
    const auto found = d.engine->handshake_result(h.flag, d.stream, kTimeout);
    ASSERT_TRUE(found.has_value()) << found.error().message;
    EXPECT_TRUE(found->flag_seen);
    EXPECT_EQ(found->payload, engine::VerifyCounts{});
    ASSERT_TRUE(seconds->has_value());
    std::printf("handshake with a %llu-byte payload on one device: %.1f us\n",
                static_cast<unsigned long long>(d.elements * 4U),
                **seconds * 1e6);
}

// With no budget the waiter looks once and gives up before the writer, launched after it
// with a whole payload to store first, can have stored the flag: flag not seen, nothing
// counted, and the kernel ended (the budget bounds it).
TEST_P(CudaOneDevice, AWaiterWithoutBudgetGivesUpAndSaysTheFlagWasNotSeen) {
    auto d = open_one_device(GetParam());
    ASSERT_TRUE(d.engine);
    const auto h = start_handshake(d, 402U, std::chrono::nanoseconds(0));
    ASSERT_TRUE(d.engine->synchronize(h.waiter, kTimeout).has_value());
    ASSERT_TRUE(d.engine->synchronize(d.stream, kTimeout).has_value());
    const auto found = d.engine->handshake_result(h.flag, d.stream, kTimeout);
    ASSERT_TRUE(found.has_value()) << found.error().message;
    EXPECT_FALSE(found->flag_seen);
    EXPECT_EQ(found->payload, engine::VerifyCounts{});
}

INSTANTIATE_TEST_SUITE_P(Sites,
                         CudaOneDevice,
                         ::testing::Values(model::VerifySite::device, model::VerifySite::host),
                         [](const auto& site) {
                             return site.param == model::VerifySite::device ? std::string("Device")
                                                                            : std::string("Host");
                         });

}  // namespace
}  // namespace peergate
