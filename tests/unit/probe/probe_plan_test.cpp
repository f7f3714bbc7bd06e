// SPDX-License-Identifier: Apache-2.0
#include "engine/probe_plan.hpp"

#include "engine/pattern.hpp"

#include <gtest/gtest.h>

#include <set>

namespace peergate {
namespace {

using model::ProbeMode;

struct BadRequest {
    const char* name;
    std::vector<std::int64_t> sizes;
    std::int64_t repeats;
    std::vector<int> gpus;
    const char* mentions;
};

TEST(ProbePlan, RefusesWhatWouldTestNothing) {
    const std::vector<BadRequest> cases = {
        {"zero size", {1, 0}, 3, {0, 1}, "--sizes-mib"},
        {"negative size", {-4}, 3, {0, 1}, "--sizes-mib"},
        {"no size", {}, 3, {0, 1}, "--sizes-mib"},
        {"huge size", {1 << 20}, 3, {0, 1}, "--sizes-mib"},
        {"zero repeats", {1}, 0, {0, 1}, "--repeats"},
        {"negative repeats", {1}, -1, {0, 1}, "--repeats"},
        {"duplicate gpu", {1}, 1, {0, 0}, "--gpus"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        engine::ProbeRequest request;
        request.sizes_mib = c.sizes;
        request.repeats = c.repeats;
        request.gpus = c.gpus;
        auto plan = engine::make_probe_plan(request);
        ASSERT_FALSE(plan.has_value());
        EXPECT_EQ(plan.error().code, util::ErrorCode::invalid_input);
        EXPECT_NE(plan.error().message.find(c.mentions), std::string::npos) << plan.error().message;
    }
}

TEST(ProbePlan, DefaultsAreOneFourSixteenSixtyFourMibThreeRepeats) {
    engine::ProbeRequest request;
    request.gpus = {0, 1};
    auto plan = engine::make_probe_plan(request);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(plan->sizes_bytes,
              (std::vector<std::uint64_t>{1U << 20U, 4U << 20U, 16U << 20U, 64U << 20U}));
    EXPECT_EQ(plan->repeats, 3);
    EXPECT_EQ(plan->timeout, std::chrono::milliseconds(30'000));
}

TEST(ProbePlan, GroupsFollowTheMode) {
    engine::ProbeRequest request;
    request.gpus = {3, 5, 7};
    request.sizes_mib = {1, 2};
    request.modes = {ProbeMode::serial, ProbeMode::bidirectional, ProbeMode::concurrent};
    auto plan = engine::make_probe_plan(request);
    ASSERT_TRUE(plan.has_value());
    const auto groups = engine::plan_groups(*plan);
    // serial: 6 pairs x 2 sizes; bidirectional: 3 unordered pairs x 2; concurrent: 2 sizes.
    ASSERT_EQ(groups.size(), 12U + 6U + 2U);
    EXPECT_EQ(groups[0].pairs.size(), 1U);
    EXPECT_EQ(groups[12].pairs.size(), 2U);
    EXPECT_EQ(groups[12].pairs[0].src, groups[12].pairs[1].dst);
    EXPECT_EQ(groups[18].pairs.size(), 6U);
    const auto cells = engine::planned_cells(*plan);
    EXPECT_EQ(cells.size(), 12U + 12U + 12U);
    EXPECT_EQ(cells[0].src, 3);  // nvidia-smi indices, not positions
    EXPECT_EQ(cells[0].dst, 5);
}

TEST(Pattern, NeverWritesTheSentinelAndDiffersPerSeedAtEveryElement) {
    const std::uint32_t a = engine::pattern_seed(0, 1, 1U << 20U, 0, ProbeMode::serial);
    const std::uint32_t b = engine::pattern_seed(0, 1, 1U << 20U, 1, ProbeMode::serial);
    for (std::uint32_t i = 0; i < 100000; ++i) {
        ASSERT_NE(engine::pattern_value(a, i), engine::kSentinelBits);
        ASSERT_NE(engine::pattern_value(a, i), engine::pattern_value(b, i)) << i;
    }
}

TEST(Pattern, SeedsAreUniquePerPairSizeRepeatAndMode) {
    std::set<std::uint32_t> seeds;
    int count = 0;
    for (int src = 0; src < 4; ++src) {
        for (int dst = 0; dst < 4; ++dst) {
            for (std::uint64_t size : {1ULL << 20U, 4ULL << 20U, 16ULL << 20U, 64ULL << 20U}) {
                for (int repeat = 0; repeat < 3; ++repeat) {
                    for (auto mode :
                         {ProbeMode::serial, ProbeMode::bidirectional, ProbeMode::concurrent}) {
                        seeds.insert(engine::pattern_seed(src, dst, size, repeat, mode));
                        ++count;
                    }
                }
            }
        }
    }
    EXPECT_EQ(seeds.size(), static_cast<std::size_t>(count));
}

TEST(Pattern, VerifyTellsDroppedFromWrongAndFindsTheFirstBadElement) {
    std::vector<std::uint32_t> data(1000);
    engine::fill_pattern(data, 42);
    EXPECT_TRUE(engine::verify_pattern(data, 42).intact());
    data[700] = engine::kSentinelBits;
    data[701] = engine::kSentinelBits;
    data[900] ^= 1U;
    const auto counts = engine::verify_pattern(data, 42);
    EXPECT_EQ(counts.dropped, 2U);
    EXPECT_EQ(counts.wrong, 1U);
    EXPECT_EQ(counts.first_bad_element, 700U);
    // Stale data from another seed is wrong everywhere.
    std::vector<std::uint32_t> stale(1000);
    engine::fill_pattern(stale, 42);
    EXPECT_EQ(engine::verify_pattern(stale, 43).wrong, 1000U);
}

TEST(Pattern, TheSentinelStandInElementIsComparedExactly) {
    // A seed for which element 5 would be the sentinel: it becomes the stand-in instead.
    const std::uint32_t seed = engine::kSentinelBits - 5U * 0x9E3779B1U;
    EXPECT_EQ(engine::pattern_value(seed, 5), engine::kSentinelStandIn);
    std::vector<std::uint32_t> data(10000);
    engine::fill_pattern(data, seed);
    EXPECT_TRUE(engine::verify_pattern(data, seed).intact());
    data[5] = engine::kSentinelBits;
    const auto counts = engine::verify_pattern(data, seed);
    EXPECT_EQ(counts.dropped, 1U);
    EXPECT_EQ(counts.first_bad_element, 5U);
}

TEST(Pattern, APatternFromAnyElementOnIsAnotherSeedsFromZero) {
    // Element 5 is the stand-in: the shifted pattern must hold it at its element 2 too.
    const std::uint32_t seed = engine::kSentinelBits - 5U * engine::kPatternStep;
    for (const std::uint64_t first : {0ULL, 3ULL, 4096ULL, (1ULL << 32U) + 1ULL}) {
        const std::uint32_t shifted = engine::shifted_pattern_seed(seed, first);
        for (std::uint32_t i = 0; i < 10; ++i) {
            ASSERT_EQ(engine::pattern_value(shifted, i),
                      engine::pattern_value(seed, static_cast<std::uint32_t>(first + i)))
                << "from " << first << ", element " << i;
        }
    }
    EXPECT_EQ(engine::pattern_value(engine::shifted_pattern_seed(seed, 3), 2),
              engine::kSentinelStandIn);
}

TEST(Pattern, ChunksOfABufferAddUpToTheWholeCompare) {
    std::vector<std::uint32_t> data(20000);
    engine::fill_pattern(data, 9);
    data[12345] = engine::kSentinelBits;
    data[19999] ^= 4U;
    engine::VerifyCounts total;
    for (std::size_t begin = 0; begin < data.size(); begin += 7000) {
        const std::size_t n = std::min<std::size_t>(7000, data.size() - begin);
        engine::accumulate(total,
                           engine::verify_pattern(std::span(data).subspan(begin, n), 9, begin));
    }
    EXPECT_EQ(total, engine::verify_pattern(data, 9));
    EXPECT_EQ(total.first_bad_element, 12345U);
    EXPECT_EQ(total.dropped, 1U);
    EXPECT_EQ(total.wrong, 1U);
}

// A chunk that starts past element 0 finds the stand-in at its own offset: a lost copy of
// exactly that element reads as the sentinel, which the fast pass would take for intact.
TEST(Pattern, AChunkFindsTheStandInAtItsOwnOffset) {
    const std::uint32_t seed = engine::kSentinelBits - 5000U * engine::kPatternStep;
    std::vector<std::uint32_t> data(20000);
    engine::fill_pattern(data, seed);
    data[5000] = engine::kSentinelBits;
    const auto chunk = engine::verify_pattern(std::span(data).subspan(4096, 4096), seed, 4096);
    EXPECT_EQ(chunk.dropped, 1U);
    EXPECT_EQ(chunk.first_bad_element, 5000U);
}

}  // namespace
}  // namespace peergate
