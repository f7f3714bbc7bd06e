// SPDX-License-Identifier: Apache-2.0
// The integrity run on the paths the engines use (docs/probe.md, "Paths"): copies, SM stores
// and loads through the peer mapping, and the flag handshake. A pair passes only when every
// path it was probed on passes; a path that cannot run is skipped, never passed.
#include "engine/probe_runner.hpp"
#include "engine/probe_verdict.hpp"
#include "unit/probe/fake_copy_engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

namespace peergate {
namespace {

using model::CellStatus;
using model::PairVerdict;
using model::ProbeMode;
using model::ProbePath;
using test::FakeCopyEngine;
using test::FakeCopyFault;

const std::vector<ProbePath> kEveryPath(std::begin(model::kAllProbePaths),
                                        std::end(model::kAllProbePaths));

engine::ProbePlan plan_on(std::vector<ProbePath> paths,
                          std::vector<ProbeMode> modes = {ProbeMode::serial}) {
    engine::ProbeRequest request;
    request.gpus = {0, 1};
    request.sizes_mib = {1};
    request.repeats = 2;
    request.modes = std::move(modes);
    request.paths = std::move(paths);
    auto plan = engine::make_probe_plan(request);
    EXPECT_TRUE(plan.has_value());
    return *plan;
}

model::ProbeResult run_paths(FakeCopyEngine& e, const engine::ProbePlan& plan) {
    return engine::judge_probe(plan, engine::run_probe(e, plan).cells);
}

const model::ProbeCell& path_cell(const model::ProbeResult& r, int src, int dst, ProbePath path) {
    const auto it = std::find_if(r.cells.begin(), r.cells.end(), [&](const auto& c) {
        return c.src == src && c.dst == dst && c.path_kind == path;
    });
    EXPECT_NE(it, r.cells.end());
    return it == r.cells.end() ? r.cells.front() : *it;
}

PairVerdict path_verdict(const model::ProbePair& pair, ProbePath path) {
    for (const auto& p : pair.paths) {
        if (p.path == path) {
            return p.verdict;
        }
    }
    ADD_FAILURE() << "no verdict for " << model::to_string(path);
    return PairVerdict::skipped;
}

TEST(ProbePaths, EveryPathIntactPassesWithOneVerdictPerPath) {
    FakeCopyEngine e(2);
    const auto r = run_paths(e, plan_on(kEveryPath));
    ASSERT_EQ(r.cells.size(), 2U * 4U);
    for (const auto& c : r.cells) {
        EXPECT_EQ(c.status, CellStatus::ok) << model::to_string(c.path_kind);
        EXPECT_EQ(c.repeats, 2);
    }
    EXPECT_EQ(r.outcome, model::ProbeOutcome::pass);
    ASSERT_EQ(r.pairs.front().paths.size(), 4U);
    EXPECT_NE(r.reason.find("on the ce, sm-store, sm-load, handshake paths"), std::string::npos)
        << r.reason;
    EXPECT_EQ(e.live_buffers(), 0);
}

// The SM store runs on the source's stream, the SM load on the destination's, the waiter on
// the destination's and the handshake's writer on the source's.
TEST(ProbePaths, EachPathRunsOnTheStreamOfTheGpuThatMovesTheData) {
    FakeCopyEngine e(2);
    run_paths(e, plan_on({ProbePath::sm_store, ProbePath::sm_load, ProbePath::handshake}));
    ASSERT_EQ(e.transfers.size(), 3U * 2U * 2U);  // paths x ordered pairs x repeats
    for (std::size_t i = 0; i < e.transfers.size(); ++i) {
        const auto& job = e.transfers[i];
        const auto& at = e.transfer_devices[i];
        const int timed_on = job.path == ProbePath::sm_load ? at.dst : at.src;
        EXPECT_EQ(at.stream, timed_on) << model::to_string(job.path);
        if (job.path == ProbePath::handshake) {
            EXPECT_EQ(at.wait_stream, at.dst);
            EXPECT_EQ(at.flag, at.dst);
            EXPECT_EQ(job.budget, engine::handshake_budget(std::chrono::seconds(30)));
        }
    }
}

TEST(ProbePaths, CopiesIntactButSmStoresDroppedFailsTheSmPathOnly) {
    FakeCopyEngine e(2);
    e.faults.push_back(FakeCopyFault{.src = 0, .dst = 1, .path = ProbePath::sm_store});
    const auto r = run_paths(e, plan_on(kEveryPath));
    EXPECT_EQ(path_cell(r, 0, 1, ProbePath::ce).status, CellStatus::ok);
    EXPECT_EQ(path_cell(r, 0, 1, ProbePath::sm_store).status, CellStatus::dropped);
    EXPECT_EQ(path_cell(r, 1, 0, ProbePath::sm_store).status, CellStatus::ok);
    const auto& p = r.pairs.front();
    EXPECT_EQ(p.verdict, PairVerdict::data_lost);
    EXPECT_EQ(path_verdict(p, ProbePath::ce), PairVerdict::ok);
    EXPECT_EQ(path_verdict(p, ProbePath::sm_store), PairVerdict::data_lost);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::fail);
    EXPECT_NE(r.reason.find("GPU 0 -> GPU 1 (serial, sm-store path)"), std::string::npos)
        << r.reason;
    EXPECT_EQ(r.remedy, engine::kSmPathRemedy);
    EXPECT_NE(p.detail.find("sm-store, serial mode"), std::string::npos) << p.detail;
}

TEST(ProbePaths, ALostFlagIsItsOwnStatusAndLosesThePair) {
    FakeCopyEngine e(2);
    e.faults.push_back(
        FakeCopyFault{.src = 1, .dst = 0, .path = ProbePath::handshake, .lose_flag = true});
    const auto r = run_paths(e, plan_on({ProbePath::handshake}, {ProbeMode::concurrent}));
    const auto& lost = path_cell(r, 1, 0, ProbePath::handshake);
    EXPECT_EQ(lost.status, CellStatus::flag_lost);
    EXPECT_EQ(lost.flags_lost, 2U);
    EXPECT_EQ(lost.dropped + lost.wrong, 0U);
    EXPECT_EQ(model::handshake_outcome(lost.status), "flag_lost");
    EXPECT_EQ(path_cell(r, 0, 1, ProbePath::handshake).status, CellStatus::ok);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::fail);
    EXPECT_EQ(engine::exit_status(r), 1);
    EXPECT_NE(r.pairs[1].detail.find("the flag never arrived in 2 of 2 repeats"), std::string::npos)
        << r.pairs[1].detail;
}

TEST(ProbePaths, APayloadThatLandsWrongAfterTheFlagIsDataLost) {
    FakeCopyEngine e(2);
    e.faults.push_back(FakeCopyFault{.corrupt = true, .path = ProbePath::handshake});
    const auto r = run_paths(e, plan_on({ProbePath::handshake}));
    EXPECT_EQ(path_cell(r, 0, 1, ProbePath::handshake).status, CellStatus::corrupted);
    EXPECT_EQ(model::handshake_outcome(CellStatus::corrupted), "data_lost");
    EXPECT_EQ(r.outcome, model::ProbeOutcome::fail);
}

// Where the kernels could not load, or there is no peer mapping, an SM cell is skipped with
// the engine's reason: the run is inconclusive, never a pass.
TEST(ProbePaths, AnUnsupportedPathIsSkippedWithItsReasonNeverPassed) {
    FakeCopyEngine e(2);
    e.unsupported_paths[ProbePath::sm_load] = "the peer kernels did not load (test)";
    const auto r = run_paths(e, plan_on({ProbePath::ce, ProbePath::sm_load}));
    const auto& skipped = path_cell(r, 0, 1, ProbePath::sm_load);
    EXPECT_EQ(skipped.status, CellStatus::skipped);
    EXPECT_EQ(skipped.detail, "not run: the peer kernels did not load (test)");
    EXPECT_EQ(path_cell(r, 0, 1, ProbePath::ce).status, CellStatus::ok);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::inconclusive);
    EXPECT_EQ(engine::exit_status(r), 2);
    EXPECT_EQ(e.live_buffers(), 0);
}

TEST(ProbePaths, EachPathHasPatternsOfItsOwn) {
    const auto ce = engine::pattern_seed(0, 1, 1U << 20U, 0, ProbeMode::serial);
    EXPECT_EQ(ce, engine::pattern_seed(0, 1, 1U << 20U, 0, ProbeMode::serial, ProbePath::ce));
    std::set<std::uint32_t> seeds;
    for (const auto path : kEveryPath) {
        seeds.insert(engine::pattern_seed(0, 1, 1U << 20U, 0, ProbeMode::serial, path));
    }
    EXPECT_EQ(seeds.size(), 4U);
}

TEST(ProbePaths, QuickIsEveryPathAtOnceOnceAtOneMiB) {
    auto request = engine::quick_request(std::chrono::seconds(30));
    request.gpus = {0, 1, 2};
    const auto plan = engine::make_probe_plan(request);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(plan->paths, kEveryPath);
    EXPECT_EQ(plan->modes, std::vector<ProbeMode>{ProbeMode::concurrent});
    EXPECT_EQ(plan->sizes_bytes, std::vector<std::uint64_t>{1U << 20U});
    EXPECT_EQ(plan->repeats, 1);
    const auto groups = engine::plan_groups(*plan);
    ASSERT_EQ(groups.size(), 4U);  // one concurrent group of all 6 ordered pairs per path
    EXPECT_EQ(groups.front().pairs.size(), 6U);
    FakeCopyEngine e(3);
    const auto r = engine::judge_probe(*plan, engine::run_probe(e, *plan).cells);
    EXPECT_TRUE(r.quick);
    EXPECT_NE(r.reason.find("a quick check"), std::string::npos) << r.reason;
}

// Where the driver refused the peer mapping, the copies go staged and no SM path applies: the
// summary names the path tested and the ones that did not apply, and why (issue 52).
FakeCopyEngine& without_peer_mapping(FakeCopyEngine& e) {
    e.copy_path = model::CopyPath::staged;
    for (const auto path : {ProbePath::sm_store, ProbePath::sm_load, ProbePath::handshake}) {
        e.unsupported_paths[path] = "no peer mapping: the driver refused peer access (test)";
    }
    return e;
}

TEST(ProbePaths, TheSummaryNamesOnlyThePathsTestedAndWhyTheOthersDidNotApply) {
    FakeCopyEngine e(2);
    const auto r = run_paths(without_peer_mapping(e), plan_on(kEveryPath, {ProbeMode::concurrent}));
    EXPECT_EQ(r.outcome, model::ProbeOutcome::pass);
    EXPECT_NE(r.reason.find("moved its data intact on the ce path (2 cells)"), std::string::npos)
        << r.reason;
    EXPECT_EQ(r.reason.find("sm-store, sm-load, handshake paths"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("; sm-store, sm-load, handshake not applicable: the driver refused "
                            "peer access"),
              std::string::npos)
        << r.reason;
    ASSERT_EQ(r.paths_not_applicable.size(), 3U);
    const std::vector<std::pair<int, int>> both{{0, 1}, {1, 0}};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(r.paths_not_applicable[i].path, kEveryPath[i + 1]);
        EXPECT_EQ(r.paths_not_applicable[i].why, model::NotApplicableWhy::peer_access_refused);
        EXPECT_EQ(r.paths_not_applicable[i].pairs, both);
    }
}

// Copies alone, as before paths existed: nothing to call not applicable.
TEST(ProbePaths, EveryPathApplyingLeavesNothingNotApplicable) {
    FakeCopyEngine e(2);
    const auto r = run_paths(e, plan_on(kEveryPath));
    EXPECT_TRUE(r.paths_not_applicable.empty());
    EXPECT_EQ(r.reason.find("not applicable"), std::string::npos) << r.reason;
}

// One pair without a peer mapping among pairs with one: the SM paths were tested on the others,
// and did not apply to that pair alone, which the summary names.
TEST(ProbePaths, APathThatDidNotApplyToSomePairsNamesThem) {
    engine::ProbeRequest request{.gpus = {0, 1, 2}, .sizes_mib = {1}, .repeats = 1};
    request.modes = {ProbeMode::concurrent};
    request.paths = {ProbePath::ce, ProbePath::sm_store};
    const auto plan = engine::make_probe_plan(request);
    ASSERT_TRUE(plan.has_value());
    auto cells = engine::planned_cells(*plan);
    for (auto& c : cells) {
        const bool refused = (c.src == 0 && c.dst == 2) || (c.src == 2 && c.dst == 0);
        c.repeats = 1;
        c.path = refused ? model::CopyPath::staged : model::CopyPath::direct;
        c.status =
            refused && c.path_kind == ProbePath::sm_store ? CellStatus::skipped : CellStatus::ok;
    }
    const auto r = engine::judge_probe(*plan, cells);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::pass);
    EXPECT_NE(r.reason.find("on the ce, sm-store paths (10 cells)"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("; sm-store not applicable to GPU 0 -> GPU 2, GPU 2 -> GPU 0: the "
                            "driver refused peer access"),
              std::string::npos)
        << r.reason;
}

TEST(ProbePaths, ThePlanRefusesAPathListedTwiceOrNone) {
    engine::ProbeRequest request{.gpus = {0, 1}};
    request.paths = {};
    EXPECT_FALSE(engine::make_probe_plan(request).has_value());
    request.paths = {ProbePath::ce, ProbePath::ce};
    EXPECT_FALSE(engine::make_probe_plan(request).has_value());
}

TEST(ProbePaths, TheWaitersBudgetIsAQuarterOfTheWatchdogAtMostTwoSeconds) {
    using std::chrono::milliseconds;
    EXPECT_EQ(engine::handshake_budget(milliseconds(400)), milliseconds(100));
    EXPECT_EQ(engine::handshake_budget(milliseconds(30'000)), std::chrono::seconds(2));
    EXPECT_EQ(engine::handshake_budget(milliseconds(1)), std::chrono::microseconds(250));
}

TEST(ProbePaths, DeviceTimeSumsEachRepeatsSlowestLane) {
    FakeCopyEngine e(2);  // every timed transfer takes 1 ms
    const auto plan = plan_on({ProbePath::ce, ProbePath::handshake}, {ProbeMode::concurrent});
    const auto done = engine::run_probe(e, plan);
    // two groups (one per path), two repeats each, both lanes at once: 4 x 1 ms
    EXPECT_NEAR(done.device_seconds, 0.004, 1e-9);
}

}  // namespace
}  // namespace peergate
