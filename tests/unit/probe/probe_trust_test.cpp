// SPDX-License-Identifier: Apache-2.0
// A probe's pass held to what the gate trusts (docs/probe.md, "What a pass means", issue 52):
// exit 0 only where the gate's verdict cache would vouch for every pair under every profile;
// else inconclusive, saying what the run lacked and what the gate needs.
#include "engine/probe_trust.hpp"

#include "engine/probe_runner.hpp"
#include "engine/probe_verdict.hpp"
#include "pipeline/probe_trust.hpp"
#include "unit/probe/fake_copy_engine.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using model::ProbeMode;
using model::ProbeOutcome;
using model::ProbePath;
using test::FakeCopyEngine;

const std::vector<ProbePath> kTrustEveryPath(std::begin(model::kAllProbePaths),
                                             std::end(model::kAllProbePaths));

model::ProbeResult intact_run(FakeCopyEngine& e,
                              std::vector<ProbeMode> modes,
                              std::vector<ProbePath> paths) {
    engine::ProbeRequest request{.gpus = {0, 1}, .sizes_mib = {1}, .repeats = 1};
    request.modes = std::move(modes);
    request.paths = std::move(paths);
    const auto plan = engine::make_probe_plan(request);
    EXPECT_TRUE(plan.has_value());
    return engine::judge_probe(*plan, engine::run_probe(e, *plan).cells);
}

TEST(ProbeTrust, EveryModeOnEveryPathIsAPassTheGateTrusts) {
    FakeCopyEngine e(2);
    const auto run = intact_run(
        e, {ProbeMode::serial, ProbeMode::bidirectional, ProbeMode::concurrent}, kTrustEveryPath);
    ASSERT_EQ(run.outcome, ProbeOutcome::pass);
    const auto trust = pipeline::gate_trust_of(run);
    EXPECT_TRUE(trust.untrusted.empty());
    EXPECT_EQ(trust.paths_needed,
              (std::vector<ProbePath>{ProbePath::ce, ProbePath::sm_store, ProbePath::handshake}));
    const auto held = pipeline::held_to_gate_trust(run);
    EXPECT_EQ(held, run);
    EXPECT_EQ(engine::exit_status(held), 0);
}

// The load-dependent loss passes one pair at a time: a serial pass is no pass for the gate.
TEST(ProbeTrust, ASerialPassIsInconclusiveNotTestedUnderLoad) {
    FakeCopyEngine e(2);
    e.faults.push_back(test::FakeCopyFault{.min_inflight = 2});
    const auto run = intact_run(e, {ProbeMode::serial}, kTrustEveryPath);
    ASSERT_EQ(run.outcome, ProbeOutcome::pass);
    const auto held = pipeline::held_to_gate_trust(run);
    EXPECT_EQ(held.outcome, ProbeOutcome::inconclusive);
    EXPECT_EQ(engine::exit_status(held), 2);
    EXPECT_NE(held.reason.find("moved its data intact"), std::string::npos) << held.reason;
    EXPECT_NE(held.reason.find("not trusted by the gate: not tested under load (the serial mode "
                               "alone; the loss is load-dependent)"),
              std::string::npos)
        << held.reason;
    EXPECT_NE(held.reason.find("the gate trusts a pass only from the concurrent mode on the direct "
                               "path, on the ce, sm-store, handshake paths"),
              std::string::npos)
        << held.reason;
    EXPECT_EQ(held.reason.find("--"), std::string::npos) << "no flag names below cli/";
    EXPECT_EQ(held.pairs, run.pairs);
}

// Copies under load vouch for llama.cpp's engine, not for NCCL's stores: the reason says so.
TEST(ProbeTrust, AConcurrentCopyOnlyPassIsTrustedForLlamaCppAloneSoInconclusive) {
    FakeCopyEngine e(2);
    const auto held =
        pipeline::held_to_gate_trust(intact_run(e, {ProbeMode::concurrent}, {ProbePath::ce}));
    EXPECT_EQ(held.outcome, ProbeOutcome::inconclusive);
    EXPECT_NE(held.reason.find("not tested on the sm-store, handshake paths"), std::string::npos)
        << held.reason;
    EXPECT_EQ(held.reason.find("under load"), std::string::npos) << held.reason;
    EXPECT_NE(held.reason.find("(it would trust this one for llama.cpp alone)"), std::string::npos)
        << held.reason;
}

// The quick check is concurrent on every path: the gate trusts its pass like any other.
TEST(ProbeTrust, AQuickPassIsTrusted) {
    auto request = engine::quick_request(std::chrono::seconds(30));
    request.gpus = {0, 1};
    const auto plan = engine::make_probe_plan(request);
    ASSERT_TRUE(plan.has_value());
    FakeCopyEngine e(2);
    const auto run = engine::judge_probe(*plan, engine::run_probe(e, *plan).cells);
    const auto held = pipeline::held_to_gate_trust(run);
    EXPECT_EQ(held.outcome, ProbeOutcome::pass) << held.reason;
    EXPECT_TRUE(pipeline::gate_trust_of(run).untrusted.empty());
}

// No peer mapping, no peer path tested: data moved through host memory is no pass the gate
// could let P2P rest on.
TEST(ProbeTrust, AStagedPassIsInconclusiveNamingThePairsWithoutAPeerPath) {
    FakeCopyEngine e(2);
    e.copy_path = model::CopyPath::staged;
    for (const auto path : {ProbePath::sm_store, ProbePath::sm_load, ProbePath::handshake}) {
        e.unsupported_paths[path] = "no peer mapping (test)";
    }
    const auto run = intact_run(e, {ProbeMode::concurrent}, kTrustEveryPath);
    ASSERT_EQ(run.outcome, ProbeOutcome::pass) << run.reason;
    const auto held = pipeline::held_to_gate_trust(run);
    EXPECT_EQ(held.outcome, ProbeOutcome::inconclusive);
    EXPECT_NE(held.reason.find("no peer path tested on GPU 0 -> GPU 1, GPU 1 -> GPU 0 (the driver "
                               "refused peer access, so the copies went through host memory)"),
              std::string::npos)
        << held.reason;
    EXPECT_EQ(held.reason.find("it would trust"), std::string::npos) << held.reason;
}

// Losses and errors keep their own outcome: only a pass is held to the gate.
TEST(ProbeTrust, AFailOrAnInconclusiveResultIsLeftAsItIs) {
    FakeCopyEngine e(2);
    e.faults.push_back(test::FakeCopyFault{.src = 0, .dst = 1});
    const auto lost = intact_run(e, {ProbeMode::serial}, {ProbePath::ce});
    ASSERT_EQ(lost.outcome, ProbeOutcome::fail);
    EXPECT_EQ(pipeline::held_to_gate_trust(lost), lost);
    engine::GateTrust none{.paths_needed = {ProbePath::ce}, .untrusted = {{0, 1}}};
    auto open = lost;
    open.outcome = ProbeOutcome::inconclusive;
    EXPECT_EQ(engine::held_to_gate_trust(open, none), open);
}

}  // namespace
}  // namespace peergate
