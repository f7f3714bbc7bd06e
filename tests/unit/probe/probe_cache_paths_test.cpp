// SPDX-License-Identifier: Apache-2.0
// The verdict cache per path (docs/probe.md, "The verdict cache"): a cached pass vouches for a
// profile only on every path its engine uses, a loss vetoes the profiles it can hurt, and a
// document that names a path this version does not know vouches for nothing.
#include "engine/probe_runner.hpp"
#include "engine/probe_verdict.hpp"
#include "policy/gate/probe_cache.hpp"
#include "report/probe/json.hpp"
#include "unit/probe/fake_copy_engine.hpp"

#include <gtest/gtest.h>

#include <iterator>

namespace peergate {
namespace {

using model::ProbePath;
using policy::gate::Profile;
using Pairs = std::vector<std::pair<int, int>>;

// A concurrent probe of two GPUs on `paths` over the in-memory engine with `faults`.
model::ProbeResult probed(std::vector<ProbePath> paths, std::vector<test::FakeCopyFault> faults) {
    engine::ProbeRequest request{.gpus = {0, 1}, .sizes_mib = {1}, .repeats = 1};
    request.modes = {model::ProbeMode::concurrent};
    request.paths = std::move(paths);
    const auto plan = engine::make_probe_plan(request);
    EXPECT_TRUE(plan.has_value());
    test::FakeCopyEngine e(2);
    e.faults = std::move(faults);
    return engine::judge_probe(*plan, engine::run_probe(e, *plan).cells);
}

policy::gate::CacheVerdict judged(const model::ProbeResult& result) {
    const model::MachineIdentity now{.boot_id = "boot-1"};
    return policy::gate::judge_cache(model::ProbeCacheEntry{.identity = now, .result = result},
                                     now);
}

const std::vector<ProbePath> kCachedPaths(std::begin(model::kAllProbePaths),
                                          std::end(model::kAllProbePaths));

TEST(ProbeCachePaths, EachProfileNeedsThePathsItsEngineUses) {
    using V = std::vector<ProbePath>;
    EXPECT_EQ(policy::gate::paths_needed(Profile::llama_cpp), V{ProbePath::ce});
    EXPECT_EQ(policy::gate::paths_needed(Profile::nccl),
              (V{ProbePath::sm_store, ProbePath::handshake}));
    EXPECT_EQ(policy::gate::paths_needed(Profile::vllm), policy::gate::paths_needed(Profile::nccl));
    EXPECT_EQ(policy::gate::paths_needed(Profile::all),
              (V{ProbePath::ce, ProbePath::sm_store, ProbePath::handshake}));
    EXPECT_EQ(policy::gate::paths_that_veto(Profile::llama_cpp), V{ProbePath::ce});
    EXPECT_EQ(policy::gate::paths_that_veto(Profile::sglang), kCachedPaths);
}

TEST(ProbeCachePaths, SmStoresDroppedVetoNcclAndLeaveLlamaCppTheCopies) {
    const auto verdict =
        judged(probed(kCachedPaths, {{.src = 0, .dst = 1, .path = ProbePath::sm_store}}));
    ASSERT_TRUE(verdict.valid);
    EXPECT_EQ(policy::gate::passed_pairs_for(verdict, Profile::llama_cpp), (Pairs{{0, 1}, {1, 0}}));
    EXPECT_TRUE(policy::gate::lost_pairs_for(verdict, Profile::llama_cpp).empty());
    EXPECT_EQ(policy::gate::passed_pairs_for(verdict, Profile::nccl), (Pairs{{1, 0}}));
    EXPECT_EQ(policy::gate::lost_pairs_for(verdict, Profile::nccl), (Pairs{{0, 1}}));
    EXPECT_EQ(policy::gate::lost_pairs_for(verdict, Profile::all), (Pairs{{0, 1}}));
    // The pair-level summary keeps its meaning: a loss on any path.
    EXPECT_EQ(verdict.lost_pairs, (Pairs{{0, 1}}));
}

TEST(ProbeCachePaths, ACopyOnlyCacheVouchesForLlamaCppAlone) {
    const auto verdict = judged(probed({ProbePath::ce}, {}));
    EXPECT_EQ(policy::gate::passed_pairs_for(verdict, Profile::llama_cpp).size(), 2U);
    EXPECT_TRUE(policy::gate::passed_pairs_for(verdict, Profile::nccl).empty());
    EXPECT_TRUE(policy::gate::passed_pairs_for(verdict, Profile::all).empty());
}

TEST(ProbeCachePaths, ALostFlagVetoesNcclButNotTheCopies) {
    const auto verdict = judged(probed(
        kCachedPaths, {{.src = 1, .dst = 0, .path = ProbePath::handshake, .lose_flag = true}}));
    EXPECT_EQ(policy::gate::lost_pairs_for(verdict, Profile::vllm), (Pairs{{1, 0}}));
    EXPECT_TRUE(policy::gate::lost_pairs_for(verdict, Profile::llama_cpp).empty());
}

TEST(ProbeCachePaths, TheJsonKeepsPathsAndAnUnknownPathVouchesForNothing) {
    const auto result = probed(kCachedPaths, {{.src = 0, .dst = 1, .path = ProbePath::sm_load}});
    auto doc = nlohmann::json::parse(report::probe::probe_to_json(result).dump());
    const auto back = report::probe::probe_from_json(doc);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, result);
    for (auto& cell : doc["cells"]) {
        if (cell["path_kind"] == "handshake") {
            cell["path_kind"] = "sm-teleport";
        }
    }
    const auto odd = report::probe::probe_from_json(doc);
    ASSERT_TRUE(odd.has_value());
    for (const auto& cell : odd->cells) {
        if (cell.path_kind == ProbePath::ce &&
            cell.detail.find("sm-teleport") != std::string::npos) {
            EXPECT_EQ(cell.status, model::CellStatus::skipped);
        }
    }
    EXPECT_TRUE(policy::gate::passed_pairs_for(judged(*odd), Profile::nccl).empty());
}

// The paths that did not apply (no peer mapping) round-trip through the cache's JSON; one whose
// path or reason this version does not know is left out, and a document written before the
// field says nothing did not apply.
TEST(ProbeCachePaths, ThePathsThatDidNotApplyRoundTrip) {
    engine::ProbeRequest request{.gpus = {0, 1}, .sizes_mib = {1}, .repeats = 1};
    request.modes = {model::ProbeMode::concurrent};
    request.paths = kCachedPaths;
    const auto plan = engine::make_probe_plan(request);
    ASSERT_TRUE(plan.has_value());
    test::FakeCopyEngine e(2);
    e.copy_path = model::CopyPath::staged;
    e.unsupported_paths[ProbePath::sm_store] = "no peer mapping (test)";
    e.unsupported_paths[ProbePath::sm_load] = "no peer mapping (test)";
    e.unsupported_paths[ProbePath::handshake] = "no peer mapping (test)";
    const auto result = engine::judge_probe(*plan, engine::run_probe(e, *plan).cells);
    ASSERT_EQ(result.paths_not_applicable.size(), 3U);
    const auto written = report::probe::probe_to_json(result);
    EXPECT_EQ(written["paths_not_applicable"][1].dump(),
              R"({"path":"sm-load","why":"peer_access_refused","reason":"the driver refused )"
              R"(peer access","pairs":[{"src":0,"dst":1},{"src":1,"dst":0}]})");
    auto doc = nlohmann::json::parse(written.dump());
    const auto back = report::probe::probe_from_json(doc);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, result);
    doc["paths_not_applicable"][0]["why"] = "moon_phase";
    doc["paths_not_applicable"][2]["path"] = "sm-teleport";
    const auto odd = report::probe::probe_from_json(doc);
    ASSERT_TRUE(odd.has_value());
    ASSERT_EQ(odd->paths_not_applicable.size(), 1U);
    EXPECT_EQ(odd->paths_not_applicable[0].path, ProbePath::sm_load);
    doc.erase("paths_not_applicable");
    EXPECT_TRUE(report::probe::probe_from_json(doc)->paths_not_applicable.empty());
}

// A document written before paths existed reads as copies alone.
TEST(ProbeCachePaths, ADocumentWithoutPathsIsCopies) {
    auto doc =
        nlohmann::json::parse(report::probe::probe_to_json(probed({ProbePath::ce}, {})).dump());
    doc.erase("paths");
    doc.erase("device_s");
    doc.erase("quick");
    for (auto& cell : doc["cells"]) {
        cell.erase("path_kind");
        cell.erase("flags_lost");
        cell.erase("handshake");
    }
    for (auto& pair : doc["pairs"]) {
        pair.erase("paths");
    }
    const auto old = report::probe::probe_from_json(doc);
    ASSERT_TRUE(old.has_value());
    EXPECT_EQ(old->paths, std::vector<ProbePath>{ProbePath::ce});
    EXPECT_EQ(policy::gate::passed_pairs_for(judged(*old), Profile::llama_cpp).size(), 2U);
}

}  // namespace
}  // namespace peergate
