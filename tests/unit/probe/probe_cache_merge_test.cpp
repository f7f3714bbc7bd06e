// SPDX-License-Identifier: Apache-2.0
// Probes of different GPUs on one boot add up in the verdict cache: each ordered pair's
// latest verdict wins, except that a loss stands (policy/gate/probe_cache.cpp).
#include "policy/gate/probe_cache.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using model::CellStatus;
using model::PairVerdict;
using model::ProbeMode;

// A probe of GPUs a and b in concurrent mode: both directions `verdict`.
model::ProbeResult probe_of(int a, int b, PairVerdict verdict) {
    const CellStatus status = verdict == PairVerdict::ok ? CellStatus::ok : CellStatus::dropped;
    model::ProbeResult r;
    r.outcome = verdict == PairVerdict::ok ? model::ProbeOutcome::pass : model::ProbeOutcome::fail;
    r.reason = "probed";
    r.gpus = {a, b};
    r.modes = {ProbeMode::concurrent};
    for (const auto& [src, dst] : {std::pair(a, b), std::pair(b, a)}) {
        r.cells.push_back(model::ProbeCell{.src = src,
                                           .dst = dst,
                                           .size_bytes = 1U << 20U,
                                           .mode = ProbeMode::concurrent,
                                           .status = status});
        r.pairs.push_back(model::ProbePair{.src = src,
                                           .dst = dst,
                                           .verdict = verdict,
                                           .modes = {{ProbeMode::concurrent, verdict}}});
    }
    return r;
}

model::MachineIdentity boot_identity() {
    return model::MachineIdentity{
        .driver_version = "cuda 12080", .iommu = "translating", .boot_id = "boot-1"};
}

std::vector<std::pair<int, int>> passing(const model::ProbeResult& result) {
    return policy::gate::judge_cache(
               model::ProbeCacheEntry{.identity = boot_identity(), .result = result},
               boot_identity())
        .concurrent_pass_pairs;
}

TEST(ProbeCacheMerge, AProbeOfOtherGpusKeepsTheEarlierPairs) {
    const auto merged = policy::gate::merge_probe_results(probe_of(0, 1, PairVerdict::ok),
                                                          probe_of(2, 3, PairVerdict::ok));
    EXPECT_EQ(merged.gpus, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(merged.outcome, model::ProbeOutcome::pass);
    EXPECT_EQ(merged.cells.size(), 4U);
    EXPECT_EQ(passing(merged), (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {2, 3}, {3, 2}}));
    EXPECT_NE(merged.reason.find("2 ordered pairs from an earlier probe"), std::string::npos)
        << merged.reason;
}

TEST(ProbeCacheMerge, AKeptPairKeepsTheSoakThatVouchedForIt) {
    auto soaked = probe_of(0, 1, PairVerdict::ok);
    soaked.rounds = 40;
    soaked.soak_s = 600.0;
    for (auto& pair : soaked.pairs) {
        pair.rounds = 40;
        pair.soak_s = 600.0;
    }
    const auto merged = policy::gate::merge_probe_results(soaked, probe_of(2, 3, PairVerdict::ok));
    EXPECT_EQ(merged.rounds, 1) << "the document's rounds are the latest run's";
    for (const auto& pair : merged.pairs) {
        const bool from_soak = pair.src < 2;
        EXPECT_EQ(pair.rounds, from_soak ? 40 : 1) << pair.src << "->" << pair.dst;
        EXPECT_EQ(pair.soak_s, from_soak ? std::optional(600.0) : std::nullopt);
    }
}

TEST(ProbeCacheMerge, TheLatestVerdictOfAPairWins) {
    const auto merged = policy::gate::merge_probe_results(probe_of(0, 1, PairVerdict::ok),
                                                          probe_of(0, 1, PairVerdict::data_lost));
    EXPECT_EQ(merged.pairs.size(), 2U);  // replaced, not doubled
    EXPECT_EQ(merged.outcome, model::ProbeOutcome::fail);
    EXPECT_TRUE(passing(merged).empty());
    EXPECT_EQ(merged.reason, "probed");  // nothing kept from the earlier probe
}

// The loss is load-dependent: a pass after a loss on the same boot proves nothing, so the
// loss stands (until a reboot or another identity replaces the entry).
TEST(ProbeCacheMerge, ALaterPassDoesNotUndoALoss) {
    const auto merged = policy::gate::merge_probe_results(probe_of(0, 1, PairVerdict::data_lost),
                                                          probe_of(0, 1, PairVerdict::ok));
    EXPECT_EQ(merged.pairs.size(), 2U);
    EXPECT_EQ(merged.cells.size(), 2U);  // the lost cells, not both probes' cells
    EXPECT_EQ(merged.outcome, model::ProbeOutcome::fail);
    EXPECT_TRUE(passing(merged).empty());
    for (const auto& pair : merged.pairs) {
        EXPECT_EQ(pair.verdict, PairVerdict::data_lost);
    }
    EXPECT_NE(merged.reason.find("2 of them lost data then and not this time"), std::string::npos)
        << merged.reason;
}

TEST(ProbeCacheMerge, AnEarlierLossStillFailsTheWhole) {
    const auto merged = policy::gate::merge_probe_results(probe_of(0, 1, PairVerdict::data_lost),
                                                          probe_of(2, 3, PairVerdict::ok));
    EXPECT_EQ(merged.outcome, model::ProbeOutcome::fail);
    EXPECT_EQ(passing(merged), (std::vector<std::pair<int, int>>{{2, 3}, {3, 2}}));
}

TEST(ProbeCacheMerge, AKeptPairInErrorLeavesItInconclusive) {
    auto earlier = probe_of(0, 1, PairVerdict::ok);
    earlier.pairs[1].verdict = PairVerdict::error;
    const auto merged = policy::gate::merge_probe_results(earlier, probe_of(2, 3, PairVerdict::ok));
    EXPECT_EQ(merged.outcome, model::ProbeOutcome::inconclusive);
}

}  // namespace
}  // namespace peergate
