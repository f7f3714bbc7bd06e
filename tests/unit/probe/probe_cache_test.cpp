// SPDX-License-Identifier: Apache-2.0
// The verdict cache document and its key: every identity field invalidates an entry.
#include "policy/gate/probe_cache.hpp"

#include "report/probe/cache_json.hpp"
#include "report/probe/json.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using model::ProbeMode;

model::MachineIdentity recorded_identity() {
    return model::MachineIdentity{.driver_version = "cuda 12080",
                                  .gpu_uuids = {"GPU-a", "GPU-b"},
                                  .pci_bus_ids = {"00000000:1B:00.0", "00000000:3B:00.0"},
                                  .iommu = "translating",
                                  .kernel_cmdline = "root=/dev/sda1",
                                  .boot_id = "boot-1"};
}

model::ProbeCell cell(int src, int dst, ProbeMode mode, model::CellStatus status) {
    model::ProbeCell c;
    c.src = src;
    c.dst = dst;
    c.size_bytes = 1U << 20U;
    c.mode = mode;
    c.repeats = 3;
    c.status = status;
    c.gbps = 21.5;
    c.first_bad_offset =
        status == model::CellStatus::ok ? std::nullopt : std::optional<std::uint64_t>(64);
    return c;
}

model::ProbeCacheEntry entry() {
    model::ProbeResult r;
    r.outcome = model::ProbeOutcome::fail;
    r.reason = "data lost";
    r.gpus = {0, 1};
    r.modes = {ProbeMode::serial, ProbeMode::concurrent};
    r.cells = {cell(0, 1, ProbeMode::serial, model::CellStatus::ok),
               cell(0, 1, ProbeMode::concurrent, model::CellStatus::ok),
               cell(1, 0, ProbeMode::serial, model::CellStatus::ok),
               cell(1, 0, ProbeMode::concurrent, model::CellStatus::dropped)};
    r.pairs = {model::ProbePair{.src = 0,
                                .dst = 1,
                                .verdict = model::PairVerdict::ok,
                                .modes = {{ProbeMode::serial, model::PairVerdict::ok},
                                          {ProbeMode::concurrent, model::PairVerdict::ok}},
                                .detail = "intact"},
               model::ProbePair{.src = 1,
                                .dst = 0,
                                .verdict = model::PairVerdict::data_lost,
                                .modes = {{ProbeMode::serial, model::PairVerdict::ok},
                                          {ProbeMode::concurrent, model::PairVerdict::data_lost}},
                                .detail = "lost"}};
    r.verify = model::VerifySite::device;
    r.remedy = "do not";
    return model::ProbeCacheEntry{
        .identity = recorded_identity(), .result = r, .written_at = "2026-01-01T00:00:00Z"};
}

TEST(ProbeCache, RoundTripsThroughText) {
    const auto e = entry();
    std::string error;
    auto back = report::probe::probe_cache_from_text(report::probe::probe_cache_to_text(e), &error);
    ASSERT_TRUE(back.has_value()) << error;
    EXPECT_EQ(back->identity, e.identity);
    EXPECT_EQ(back->result, e.result);
    EXPECT_EQ(back->written_at, e.written_at);
}

TEST(ProbeCache, ASoaksRoundsRoundTripAndAnOlderDocumentWasOneSweep) {
    auto e = entry();
    e.result.rounds = 42;
    e.result.soak_s = 600.0;
    std::string error;
    auto back = report::probe::probe_cache_from_text(report::probe::probe_cache_to_text(e), &error);
    ASSERT_TRUE(back.has_value()) << error;
    EXPECT_EQ(back->result.rounds, 42);
    EXPECT_EQ(back->result.soak_s, 600.0);
    auto older = report::probe::probe_to_json(entry().result);
    older.erase("rounds");
    older.erase("soak_s");
    const auto read = report::probe::probe_from_json(nlohmann::json::parse(older.dump()));
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->rounds, 1);
    EXPECT_FALSE(read->soak_s.has_value());
}

TEST(ProbeCache, EachPairKeepsTheRoundsOfItsRunAndAnOlderPairTakesTheDocuments) {
    auto e = entry();
    e.result.rounds = 42;
    e.result.soak_s = 600.0;
    e.result.pairs[0].rounds = 7;
    e.result.pairs[0].soak_s = 60.0;
    auto back = report::probe::probe_from_json(
        nlohmann::json::parse(report::probe::probe_to_json(e.result).dump()));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->pairs[0].rounds, 7);
    EXPECT_EQ(back->pairs[0].soak_s, 60.0);
    EXPECT_EQ(back->pairs[1].rounds, 1);
    EXPECT_FALSE(back->pairs[1].soak_s.has_value());
    auto older = report::probe::probe_to_json(e.result);
    for (auto& pair : older["pairs"]) {
        pair.erase("rounds");
        pair.erase("soak_s");
    }
    const auto read = report::probe::probe_from_json(nlohmann::json::parse(older.dump()));
    ASSERT_TRUE(read.has_value());
    for (const auto& pair : read->pairs) {
        EXPECT_EQ(pair.rounds, 42);
        EXPECT_EQ(pair.soak_s, 600.0);
    }
}

TEST(ProbeCache, TrustsOnlyPairsThatPassedConcurrentModeOnTheSameIdentity) {
    const auto verdict = policy::gate::judge_cache(entry(), recorded_identity());
    EXPECT_TRUE(verdict.valid);
    EXPECT_EQ(verdict.concurrent_pass_pairs, (std::vector<std::pair<int, int>>{{0, 1}}));
    EXPECT_EQ(verdict.lost_pairs, (std::vector<std::pair<int, int>>{{1, 0}}));
}

// The failure is load-dependent: a pair can come through the concurrent mode intact and
// lose data when both directions run at once. A loss in any mode is doubt, so such a pair
// does not vouch.
TEST(ProbeCache, APairThatLostDataInAnotherModeIsNotTrusted) {
    auto e = entry();
    e.result.modes.push_back(ProbeMode::bidirectional);
    e.result.cells.push_back(cell(0, 1, ProbeMode::bidirectional, model::CellStatus::dropped));
    auto& pair = e.result.pairs.front();
    pair.verdict = model::PairVerdict::data_lost;
    pair.modes.push_back({ProbeMode::bidirectional, model::PairVerdict::data_lost});

    const auto verdict = policy::gate::judge_cache(e, recorded_identity());
    EXPECT_TRUE(verdict.valid);
    EXPECT_TRUE(verdict.concurrent_pass_pairs.empty());
}

// The gate trusts a pair only on the evidence that the loss would have shown: its
// concurrent-mode copies, each on the direct path llama.cpp uses.
TEST(ProbeCache, ASerialOrStagedPassDoesNotVouch) {
    auto staged = entry();
    staged.result.cells[1].path = model::CopyPath::staged;  // 0 -> 1, concurrent
    EXPECT_TRUE(
        policy::gate::judge_cache(staged, recorded_identity()).concurrent_pass_pairs.empty());

    auto serial_only = entry();
    serial_only.result.modes = {ProbeMode::serial};
    std::erase_if(serial_only.result.cells,
                  [](const model::ProbeCell& c) { return c.mode == ProbeMode::concurrent; });
    for (auto& pair : serial_only.result.pairs) {
        pair.verdict = model::PairVerdict::ok;
        pair.modes = {{ProbeMode::serial, model::PairVerdict::ok}};
    }
    EXPECT_TRUE(
        policy::gate::judge_cache(serial_only, recorded_identity()).concurrent_pass_pairs.empty());
}

TEST(ProbeCache, EveryIdentityFieldInvalidatesTheEntry) {
    using Change = void (*)(model::MachineIdentity&);
    const std::vector<std::pair<const char*, Change>> changes = {
        {"driver_version", [](model::MachineIdentity& m) { m.driver_version = "cuda 12090"; }},
        {"gpu_uuids", [](model::MachineIdentity& m) { m.gpu_uuids[1] = "GPU-c"; }},
        {"pci_bus_ids", [](model::MachineIdentity& m) { m.pci_bus_ids.pop_back(); }},
        {"iommu", [](model::MachineIdentity& m) { m.iommu = "identity"; }},
        {"kernel_cmdline", [](model::MachineIdentity& m) { m.kernel_cmdline += " iommu=pt"; }},
        {"boot_id", [](model::MachineIdentity& m) { m.boot_id = "boot-2"; }},
    };
    for (const auto& [field, change] : changes) {
        SCOPED_TRACE(field);
        auto now = recorded_identity();
        change(now);
        const auto verdict = policy::gate::judge_cache(entry(), now);
        EXPECT_FALSE(verdict.valid);
        EXPECT_TRUE(verdict.concurrent_pass_pairs.empty());
        EXPECT_NE(verdict.reason.find(field), std::string::npos) << verdict.reason;
    }
}

TEST(ProbeCache, NoEntryOrUnknownBootIsNotTrusted) {
    EXPECT_FALSE(policy::gate::judge_cache(std::nullopt, recorded_identity()).valid);
    auto now = recorded_identity();
    now.boot_id.clear();
    auto e = entry();
    e.identity.boot_id.clear();
    EXPECT_FALSE(policy::gate::judge_cache(e, now).valid);
}

// A loss the cache cannot tie to this boot is not forgotten: it vouches for nothing, and it is
// doubt that FORCE may not override (rule cache_untrusted); a stale cache of passes is not.
TEST(ProbeCache, AStaleLossIsDoubtAndAStalePassIsNot) {
    auto now = recorded_identity();
    now.boot_id = "boot-2";
    const auto stale_loss = policy::gate::judge_cache(entry(), now);
    EXPECT_FALSE(stale_loss.valid);
    EXPECT_TRUE(stale_loss.lost_pairs.empty());
    EXPECT_NE(
        stale_loss.doubt.find("data lost from GPU 1 to GPU 0 (probe of 2026-01-01T00:00:00Z)"),
        std::string::npos)
        << stale_loss.doubt;
    EXPECT_NE(stale_loss.doubt.find("boot_id"), std::string::npos) << stale_loss.doubt;

    auto passes = entry();
    passes.result.pairs[1].verdict = model::PairVerdict::ok;
    EXPECT_EQ(policy::gate::judge_cache(passes, now).doubt, "");
    EXPECT_EQ(policy::gate::judge_cache(entry(), recorded_identity()).doubt, "")
        << "a valid cache's loss is the probe_failed veto, not doubt";
    auto unknown_boot = recorded_identity();
    unknown_boot.boot_id.clear();
    EXPECT_NE(policy::gate::judge_cache(entry(), unknown_boot).doubt, "");
}

TEST(ProbeCache, RejectsOtherDocuments) {
    std::string error;
    EXPECT_FALSE(
        report::probe::probe_cache_from_text("{\"schema\": \"peergate.probe/v1\"}", &error));
    EXPECT_FALSE(error.empty());
    EXPECT_FALSE(report::probe::probe_cache_from_text("not json", &error));
    // A schema of another type was read with value("schema", ""), which throws: the gate
    // died on such a file instead of ignoring it (found by the probe_cache fuzz target).
    error.clear();
    EXPECT_FALSE(
        report::probe::probe_cache_from_text(R"({"schema": {"driver_version": 1}})", &error));
    EXPECT_EQ(error, "not a peergate.probe_cache/v1 document");
}

// A number that does not fit its field makes the document unreadable (found by the
// probe_cache fuzz target: a GPU index of 3.3e49 was converted to int, which is undefined).
TEST(ProbeCache, ANumberOutOfRangeMakesTheDocumentUnreadable) {
    const std::string good = report::probe::probe_cache_to_text(entry());
    const std::vector<std::pair<std::string, std::string>> breaks{
        {"\"gpus\": [\n      0,", "\"gpus\": [\n      3.3e49,"},
        {"\"src\": 0,", "\"src\": 4294967296,"},
        {"\"size_bytes\": 1048576,", "\"size_bytes\": -1,"},
        {"\"gbps\": 21.5,", "\"gbps\": \"fast\","},
    };
    for (const auto& [from, to] : breaks) {
        SCOPED_TRACE(to);
        const auto at = good.find(from);
        ASSERT_NE(at, std::string::npos) << good;
        std::string text = good;
        text.replace(at, from.size(), to);
        std::string error;
        EXPECT_FALSE(report::probe::probe_cache_from_text(text, &error).has_value());
        EXPECT_EQ(error, "the probe result is unreadable");
    }
}

TEST(ProbeJson, HasTheContractFieldsInOrder) {
    const auto j = report::probe::probe_to_json(entry().result);
    EXPECT_EQ(j.begin().key(), "schema");
    EXPECT_EQ(j["schema"], "peergate.probe/v1");
    EXPECT_EQ(j["result"], "fail");
    for (const char* key : {"src",
                            "dst",
                            "size_bytes",
                            "mode",
                            "repeats",
                            "status",
                            "wrong",
                            "dropped",
                            "first_bad_offset",
                            "gbps",
                            "path",
                            "verify"}) {
        EXPECT_TRUE(j["cells"][0].contains(key)) << key;
    }
    EXPECT_EQ(j["rounds"], 1);
    EXPECT_TRUE(j["soak_s"].is_null());
    EXPECT_TRUE(j["cells"][0]["first_bad_offset"].is_null());
    EXPECT_EQ(j["cells"][3]["first_bad_offset"], 64);
    EXPECT_EQ(j["pairs"][1]["verdict"], "data_lost");
    EXPECT_EQ(j["pairs"][1]["modes"]["concurrent"], "data_lost");
}

}  // namespace
}  // namespace peergate
