// SPDX-License-Identifier: Apache-2.0
// The integrity run over an in-memory engine: verdicts per cell, pair and run, never
// stopping at the first bad byte, the watchdog ending the run, allocation failures.
#include "engine/probe_runner.hpp"

#include "engine/probe_verdict.hpp"
#include "unit/probe/fake_copy_engine.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using model::CellStatus;
using model::PairVerdict;
using model::ProbeMode;
using test::FakeCopyEngine;
using test::FakeCopyFault;

engine::ProbePlan plan_for(int gpus,
                           std::vector<std::int64_t> sizes,
                           int repeats,
                           std::vector<ProbeMode> modes) {
    engine::ProbeRequest request;
    for (int i = 0; i < gpus; ++i) {
        request.gpus.push_back(i);
    }
    request.sizes_mib = std::move(sizes);
    request.repeats = repeats;
    request.modes = std::move(modes);
    auto plan = engine::make_probe_plan(request);
    EXPECT_TRUE(plan.has_value());
    return *plan;
}

model::ProbeResult run(FakeCopyEngine& e, const engine::ProbePlan& plan) {
    return engine::judge_probe(plan, engine::run_probe(e, plan).cells);
}

const model::ProbeCell& cell(
    const model::ProbeResult& r, int src, int dst, std::uint64_t mib, ProbeMode mode) {
    for (const auto& c : r.cells) {
        if (c.src == src && c.dst == dst && c.size_bytes == (mib << 20U) && c.mode == mode) {
            return c;
        }
    }
    ADD_FAILURE() << "no cell " << src << "->" << dst;
    return r.cells.front();
}

const model::ProbePair& pair(const model::ProbeResult& r, int src, int dst) {
    for (const auto& p : r.pairs) {
        if (p.src == src && p.dst == dst) {
            return p;
        }
    }
    ADD_FAILURE() << "no pair";
    return r.pairs.front();
}

TEST(ProbeRunner, IntactCopiesPassEveryOrderedPair) {
    FakeCopyEngine e(3);
    const auto plan = plan_for(3, {1, 2}, 2, {ProbeMode::serial});
    const auto r = run(e, plan);
    ASSERT_EQ(r.cells.size(), 12U);
    for (const auto& c : r.cells) {
        EXPECT_EQ(c.status, CellStatus::ok);
        EXPECT_EQ(c.repeats, 2);
        EXPECT_EQ(c.dropped + c.wrong, 0U);
        ASSERT_TRUE(c.gbps.has_value());
        EXPECT_NEAR(*c.gbps, static_cast<double>(c.size_bytes) / 1e-3 / 1e9, 1e-6);
    }
    EXPECT_EQ(r.pairs.size(), 6U);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::pass);
    EXPECT_EQ(engine::exit_status(r), 0);
    EXPECT_TRUE(r.remedy.empty());
    EXPECT_EQ(e.live_buffers(), 0);
}

TEST(ProbeRunner, CountsDroppedElementsAndKeepsGoing) {
    FakeCopyEngine e(2);
    e.faults.push_back(FakeCopyFault{.src = 0, .dst = 1});
    const auto r = run(e, plan_for(2, {1, 4}, 3, {ProbeMode::serial}));
    ASSERT_EQ(r.cells.size(), 4U);  // the bad pair did not stop the run
    const auto& bad = cell(r, 0, 1, 4, ProbeMode::serial);
    EXPECT_EQ(bad.status, CellStatus::dropped);
    EXPECT_EQ(bad.dropped, (4U << 20U) / 4U * 3U);
    EXPECT_EQ(bad.repeats, 3);
    EXPECT_EQ(bad.first_bad_offset, 0U);
    EXPECT_EQ(cell(r, 1, 0, 4, ProbeMode::serial).status, CellStatus::ok);
    EXPECT_EQ(pair(r, 0, 1).verdict, PairVerdict::data_lost);
    EXPECT_EQ(pair(r, 1, 0).verdict, PairVerdict::ok);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::fail);
    EXPECT_EQ(engine::exit_status(r), 1);
    EXPECT_NE(r.reason.find("GPU 0 -> GPU 1 (serial)"), std::string::npos) << r.reason;
    EXPECT_NE(r.remedy.find("GGML_CUDA_P2P=0"), std::string::npos);
    EXPECT_NE(r.remedy.find("dmesg | grep -i -E 'DMAR|AMD-Vi'"), std::string::npos);
    EXPECT_NE(r.remedy.find("iommu=pt"), std::string::npos);
    EXPECT_NE(r.remedy.find("amd_iommu=off"), std::string::npos);
}

TEST(ProbeRunner, DropsOnlyAboveASizeFailOnlyThoseCells) {
    FakeCopyEngine e(2);
    e.faults.push_back(FakeCopyFault{.min_bytes = 2U << 20U});
    const auto r = run(e, plan_for(2, {1, 4}, 1, {ProbeMode::serial}));
    EXPECT_EQ(cell(r, 0, 1, 1, ProbeMode::serial).status, CellStatus::ok);
    EXPECT_EQ(cell(r, 0, 1, 4, ProbeMode::serial).status, CellStatus::dropped);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::fail);
}

TEST(ProbeRunner, LoadDependentDropsPassSeriallyAndFailUnderConcurrency) {
    FakeCopyEngine e(2);
    e.faults.push_back(FakeCopyFault{.min_inflight = 2});
    const auto r = run(
        e,
        plan_for(2, {1}, 2, {ProbeMode::serial, ProbeMode::bidirectional, ProbeMode::concurrent}));
    const auto& p = pair(r, 0, 1);
    ASSERT_EQ(p.modes.size(), 3U);
    EXPECT_EQ(p.modes[0].mode, ProbeMode::serial);
    EXPECT_EQ(p.modes[0].verdict, PairVerdict::ok);
    EXPECT_EQ(p.modes[1].verdict, PairVerdict::data_lost);
    EXPECT_EQ(p.modes[2].verdict, PairVerdict::data_lost);
    EXPECT_EQ(p.verdict, PairVerdict::data_lost);
    EXPECT_NE(r.reason.find("(bidirectional, concurrent)"), std::string::npos) << r.reason;
}

// The same fabric passes one copy at a time: the data-level verdict is a pass, and the probe
// command holds it to the gate, which does not trust it (probe_trust_test.cpp).
TEST(ProbeRunner, ASerialPassOnALoadDependentFaultIsIntactDataOnly) {
    FakeCopyEngine e(2);
    e.faults.push_back(FakeCopyFault{.min_inflight = 2});
    const auto serial = run(e, plan_for(2, {1}, 1, {ProbeMode::serial}));
    EXPECT_EQ(serial.outcome, model::ProbeOutcome::pass);
    EXPECT_NE(serial.reason.find("moved its data intact"), std::string::npos) << serial.reason;
    EXPECT_EQ(serial.reason.find("--"), std::string::npos) << "no flag names below cli/";
}

TEST(ProbeRunner, ConcurrentModeHasEveryOrderedPairInFlightAtOnce) {
    FakeCopyEngine e(4);
    const auto r = run(e, plan_for(4, {1}, 1, {ProbeMode::concurrent}));
    EXPECT_EQ(e.max_inflight_seen, 12);
    EXPECT_EQ(r.cells.size(), 12U);
    EXPECT_EQ(r.outcome, model::ProbeOutcome::pass);
}

TEST(ProbeRunner, CorruptedElementsAreCountedApartFromDropped) {
    FakeCopyEngine e(2);
    e.faults.push_back(FakeCopyFault{.src = 1, .dst = 0, .corrupt = true});
    const auto r = run(e, plan_for(2, {1}, 2, {ProbeMode::serial}));
    const auto& c = cell(r, 1, 0, 1, ProbeMode::serial);
    EXPECT_EQ(c.status, CellStatus::corrupted);
    EXPECT_EQ(c.wrong, (1U << 20U) / 4U / 2U * 2U);
    EXPECT_EQ(c.dropped, 0U);
    EXPECT_EQ(pair(r, 1, 0).verdict, PairVerdict::data_lost);
}

TEST(ProbeRunner, AllocationFailureSkipsTheCellAndIsInconclusive) {
    FakeCopyEngine e(2);
    e.fail_alloc_on = 1;
    const auto r = run(e, plan_for(2, {1}, 1, {ProbeMode::serial}));
    for (const auto& c : r.cells) {
        EXPECT_EQ(c.status, CellStatus::skipped);
        EXPECT_NE(c.detail.find("could not allocate 1 MiB on GPU 1"), std::string::npos)
            << c.detail;
    }
    EXPECT_EQ(r.outcome, model::ProbeOutcome::inconclusive);
    EXPECT_EQ(engine::exit_status(r), 2);
    EXPECT_EQ(e.live_buffers(), 0);
}

TEST(ProbeRunner, DataLossWinsOverSkippedCells) {
    FakeCopyEngine e(3);
    e.fail_alloc_on = 2;
    e.faults.push_back(FakeCopyFault{.src = 0, .dst = 1});
    const auto r = run(e, plan_for(3, {1}, 1, {ProbeMode::serial}));
    EXPECT_EQ(pair(r, 0, 2).verdict, PairVerdict::skipped);
    EXPECT_EQ(pair(r, 0, 1).verdict, PairVerdict::data_lost);
    EXPECT_EQ(engine::exit_status(r), 1);
}

TEST(ProbeRunner, WatchdogTimeoutIsAnErrorAndEndsTheRun) {
    FakeCopyEngine e(2);
    e.timeout_on_sync = 0;
    const auto plan = plan_for(2, {1, 4}, 1, {ProbeMode::serial});
    const auto r = run(e, plan);
    ASSERT_EQ(r.cells.size(), engine::planned_cells(plan).size());
    EXPECT_EQ(r.cells[0].status, CellStatus::error);
    EXPECT_NE(r.cells[0].detail.find("watchdog"), std::string::npos) << r.cells[0].detail;
    for (std::size_t i = 1; i < r.cells.size(); ++i) {
        EXPECT_EQ(r.cells[i].status, CellStatus::skipped);
        EXPECT_NE(r.cells[i].detail.find("watchdog"), std::string::npos);
    }
    EXPECT_EQ(r.outcome, model::ProbeOutcome::inconclusive);
    EXPECT_EQ(engine::exit_status(r), 2);
}

TEST(ProbeRunner, AbandonedRunKeepsDoneCellsAndMarksTheRest) {
    const auto plan = plan_for(2, {1, 4}, 1, {ProbeMode::serial});
    auto done = engine::planned_cells(plan);
    done.resize(1);
    done[0].status = CellStatus::ok;
    const auto cells = engine::finish_abandoned_run(plan, done, 1, "watchdog: hung");
    ASSERT_EQ(cells.size(), 4U);
    EXPECT_EQ(cells[0].status, CellStatus::ok);
    EXPECT_EQ(cells[1].status, CellStatus::error);
    EXPECT_EQ(cells[1].detail, "watchdog: hung");
    EXPECT_EQ(cells[2].status, CellStatus::skipped);
    EXPECT_EQ(cells[3].status, CellStatus::skipped);
}

TEST(ProbeRunner, StagedPathIsNamedInThePairDetail) {
    FakeCopyEngine e(2);
    e.copy_path = model::CopyPath::staged;
    const auto r = run(e, plan_for(2, {1}, 1, {ProbeMode::serial}));
    EXPECT_EQ(r.cells[0].path, model::CopyPath::staged);
    EXPECT_NE(r.pairs[0].detail.find("staged"), std::string::npos);
}

// A watchdog error in one cell must not hide a loss seen in another: the loss decides.
TEST(ProbeVerdict, DataLossWinsOverAnError) {
    model::ProbeCell errored;
    errored.status = CellStatus::error;
    model::ProbeCell dropped;
    dropped.status = CellStatus::dropped;
    EXPECT_EQ(engine::pair_verdict({&errored, &dropped}), PairVerdict::data_lost);
    EXPECT_EQ(engine::pair_verdict({&dropped, &errored}), PairVerdict::data_lost);
}

// Nothing tested is never a pass: a pair without cells, or a plan without pairs.
TEST(ProbeVerdict, NothingTestedIsNotAPass) {
    EXPECT_EQ(engine::pair_verdict({}), PairVerdict::skipped);
    const auto one_gpu = engine::judge_probe(plan_for(1, {1}, 1, {ProbeMode::serial}), {});
    EXPECT_TRUE(one_gpu.pairs.empty());
    EXPECT_EQ(one_gpu.outcome, model::ProbeOutcome::inconclusive);
    EXPECT_EQ(engine::exit_status(one_gpu), 2);
}

TEST(ProbeVerdict, CannotRunIsInconclusive) {
    const auto r = engine::cannot_run({0}, "fewer than two GPUs");
    EXPECT_EQ(engine::exit_status(r), 2);
    EXPECT_TRUE(r.pairs.empty());
}

}  // namespace
}  // namespace peergate
