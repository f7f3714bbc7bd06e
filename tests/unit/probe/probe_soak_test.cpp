// SPDX-License-Identifier: Apache-2.0
// A soak: the sweep again and again until the time has passed, fresh patterns each round,
// counts summed per cell, and the rounds that end it early (data lost, the watchdog).
#include "engine/probe_runner.hpp"
#include "engine/probe_verdict.hpp"
#include "unit/probe/fake_copy_engine.hpp"

#include <gtest/gtest.h>

#include <set>

namespace peergate {
namespace {

using model::CellStatus;
using model::ProbeMode;
using test::FakeCopyEngine;
using namespace std::chrono_literals;

// Two GPUs, 1 MiB, `repeats` each, serial: two cells a round.
engine::ProbePlan soak_plan(std::chrono::milliseconds soak, int repeats = 1) {
    engine::ProbeRequest request{.gpus = {0, 1}, .sizes_mib = {1}, .repeats = repeats};
    request.soak = soak;
    auto plan = engine::make_probe_plan(request);
    EXPECT_TRUE(plan.has_value());
    return *plan;
}

// A clock that moves one second each time it is read.
engine::SoakClock ticking_clock() {
    auto reads = std::make_shared<int>(0);
    return
        [reads] { return std::chrono::steady_clock::time_point(std::chrono::seconds((*reads)++)); };
}

// A clock that never moves: only the soak's other ends can stop it.
engine::SoakClock stopped_clock() {
    return [] { return std::chrono::steady_clock::time_point(); };
}

TEST(ProbeSoak, SweepsUntilTheSoakHasPassedAndSumsEachCell) {
    FakeCopyEngine e(2);
    const auto plan = soak_plan(5s, 2);
    const auto run = engine::run_probe(e, plan, {}, ticking_clock());
    // The clock reads 0 at the start, then 1, 2, 3, 4 and 5 after rounds 1 to 5.
    EXPECT_EQ(run.rounds, 5);
    ASSERT_EQ(run.cells.size(), 2U);
    for (const auto& cell : run.cells) {
        EXPECT_EQ(cell.status, CellStatus::ok);
        EXPECT_EQ(cell.repeats, 10);
        ASSERT_TRUE(cell.gbps.has_value());
        EXPECT_NEAR(*cell.gbps, (1U << 20U) / 1e-3 / 1e9, 1e-9);  // 1 ms a copy, every round
    }
    const auto result = engine::judge_probe(plan, run.cells, run.rounds);
    EXPECT_EQ(result.outcome, model::ProbeOutcome::pass);
    EXPECT_EQ(result.rounds, 5);
    EXPECT_EQ(result.soak_s, 5.0);
    EXPECT_NE(result.reason.find("5 rounds of a 5 s soak"), std::string::npos) << result.reason;
    for (const auto& pair : result.pairs) {
        EXPECT_EQ(pair.rounds, 5);
        EXPECT_EQ(pair.soak_s, 5.0);
    }
}

TEST(ProbeSoak, EveryRepeatOfEveryRoundHasAPatternOfItsOwn) {
    FakeCopyEngine e(2);
    const auto run = engine::run_probe(e, soak_plan(4s, 3), {}, ticking_clock());
    ASSERT_EQ(run.rounds, 4);
    ASSERT_EQ(e.pattern_seeds.size(), 4U * 2U * 3U);
    const std::set<std::uint32_t> distinct(e.pattern_seeds.begin(), e.pattern_seeds.end());
    EXPECT_EQ(distinct.size(), e.pattern_seeds.size());
}

TEST(ProbeSoak, WithoutASoakOneSweepRunsWhateverTheClock) {
    FakeCopyEngine e(2);
    const auto plan = soak_plan(0ms);
    const auto run = engine::run_probe(e, plan, {}, stopped_clock());
    EXPECT_EQ(run.rounds, 1);
    const auto result = engine::judge_probe(plan, run.cells, run.rounds);
    EXPECT_FALSE(result.soak_s.has_value());
    EXPECT_EQ(result.reason.find("soak"), std::string::npos);
}

TEST(ProbeSoak, AnIntermittentLossEndsTheSoakInTheRoundItShowed) {
    FakeCopyEngine e(2);
    e.faults.push_back({.src = 1, .dst = 0, .after_copies = 4});  // copies 5 on: round 3
    const auto plan = soak_plan(1h);
    const auto run = engine::run_probe(e, plan, {}, stopped_clock());
    EXPECT_EQ(run.rounds, 3);
    EXPECT_EQ(run.cells[0].status, CellStatus::ok);  // GPU 0 -> 1
    EXPECT_EQ(run.cells[1].status, CellStatus::dropped);
    EXPECT_EQ(run.cells[1].repeats, 3);
    EXPECT_EQ(run.cells[1].dropped, (1U << 20U) / 4U);  // one repeat of three lost it all
    const auto result = engine::judge_probe(plan, run.cells, run.rounds);
    EXPECT_EQ(result.outcome, model::ProbeOutcome::fail);
    EXPECT_NE(result.reason.find("(in round 3 of a 3600 s soak; the rounds before it were intact)"),
              std::string::npos)
        << result.reason;
}

TEST(ProbeSoak, TheWatchdogInALaterRoundKeepsWhatEarlierRoundsFound) {
    FakeCopyEngine e(2);
    e.timeout_on_sync = 6;  // three syncs a cell (two devices, one copy): round 2's first
    const auto run = engine::run_probe(e, soak_plan(1h), {}, stopped_clock());
    EXPECT_EQ(run.rounds, 2);
    EXPECT_EQ(run.cells[0].status, CellStatus::error);
    EXPECT_EQ(run.cells[0].detail.rfind("round 2: watchdog: fill synchronisation", 0), 0U)
        << run.cells[0].detail;
    EXPECT_EQ(run.cells[1].status, CellStatus::ok);  // round 1's answer stands
    EXPECT_EQ(run.cells[1].repeats, 1);
}

TEST(ProbeSoak, ARoundThatMovesNothingEndsTheSoak) {
    FakeCopyEngine e(2);
    e.fail_alloc_on = 1;
    const auto run = engine::run_probe(e, soak_plan(1h), {}, stopped_clock());
    EXPECT_EQ(run.rounds, 1);
    EXPECT_EQ(run.cells[0].status, CellStatus::skipped);
}

TEST(ProbeSoak, ProgressReportsEachRoundsCellsWithTheirRound) {
    FakeCopyEngine e(2);
    std::vector<std::tuple<std::size_t, std::size_t, int, int>>
        seen;  // done, total, round, repeats
    const engine::ProbeProgress progress =
        [&](const model::ProbeCell& cell, std::size_t done, std::size_t total, int round) {
            seen.emplace_back(done, total, round, cell.repeats);
        };
    engine::run_probe(e, soak_plan(2s), progress, ticking_clock());
    const std::vector<std::tuple<std::size_t, std::size_t, int, int>> expected{
        {1, 2, 0, 1}, {2, 2, 0, 1}, {1, 2, 1, 2}, {2, 2, 1, 2}};
    EXPECT_EQ(seen, expected);
}

TEST(ProbeSoak, AnAbandonedLaterRoundMarksOnlyTheCellItHungOn) {
    const auto plan = soak_plan(1h);
    auto done = engine::planned_cells(plan);  // both cells, from round 1
    for (auto& cell : done) {
        cell.status = CellStatus::ok;
        cell.repeats = 1;
    }
    const auto cells = engine::finish_abandoned_run(plan, done, 0, "watchdog: hung");
    ASSERT_EQ(cells.size(), 2U);
    EXPECT_EQ(cells[0].status, CellStatus::error);
    EXPECT_EQ(cells[0].detail, "watchdog: hung");
    EXPECT_EQ(cells[1].status, CellStatus::ok);
}

TEST(ProbeSoak, ThePlanRefusesANegativeOrWeekLongSoak) {
    for (const auto soak :
         {std::chrono::milliseconds(-1), std::chrono::milliseconds(engine::kMaxSoak) + 1ms}) {
        engine::ProbeRequest request{.gpus = {0, 1}};
        request.soak = soak;
        const auto plan = engine::make_probe_plan(request);
        ASSERT_FALSE(plan.has_value());
        EXPECT_EQ(plan.error().message.rfind("--soak: ", 0), 0U) << plan.error().message;
    }
}

TEST(ProbeSoak, RepeatNumbersPastTwoToThe24StillChangeThePattern) {
    for (const int repeat : {0, 1, 5}) {
        EXPECT_NE(engine::pattern_seed(0, 1, 1U << 20U, repeat, ProbeMode::serial),
                  engine::pattern_seed(0, 1, 1U << 20U, repeat + (1 << 24), ProbeMode::serial));
    }
}

}  // namespace
}  // namespace peergate
