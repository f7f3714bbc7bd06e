// SPDX-License-Identifier: Apache-2.0
// NVLink error counters (policy/doctor/nvlink_errors.cpp): what the links count since the
// driver loaded and what they gained while the probe moved data, graded by the counts
// (docs/doctor.md, "How NVLink error counts are graded"): per link and counter, the same counts
// give the same severity on any GPU, and more never gives less. Counts that fell, were not
// answered, or belong to a link or GPU read only once say nothing.
#include "policy/doctor/nvlink_errors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::policy::doctor {
namespace {

using model::Severity;
using Count = std::optional<std::uint64_t>;

model::LinkErrors link(int index, Count replay, Count recovery, Count crc_flit, Count crc_data) {
    model::LinkErrors out{.link = index};
    out.counts.value = {replay, recovery, crc_flit, crc_data};
    return out;
}

// An NVLink5 link (Blackwell): the DL counters unanswered, its own two read.
model::LinkErrors nvlink5(int index, Count link_recovery_events, Count effective_errors) {
    model::LinkErrors out{.link = index};
    out.counts.value[static_cast<std::size_t>(model::NvlinkCounter::link_recovery_events)] =
        link_recovery_events;
    out.counts.value[static_cast<std::size_t>(model::NvlinkCounter::effective_errors)] =
        effective_errors;
    return out;
}

model::LinkErrors clean(int index) {
    return link(index, 0, 0, 0, 0);
}

GpuLinks gpu(int index, std::vector<model::LinkErrors> errors) {
    return GpuLinks{.gpu = index, .name = "NVIDIA H100", .slots = 18, .errors = std::move(errors)};
}

bool says(const model::Finding& finding, const std::string& text) {
    return finding.message.find(text) != std::string::npos;
}

TEST(NvlinkErrors, CleanLinksSayNothing) {
    EXPECT_TRUE(nvlink_error_findings({gpu(0, {clean(0), clean(1)}), gpu(1, {})}).empty());
}

TEST(NvlinkErrors, AFewReplaysAndCrcErrorsAreANote) {
    const auto findings =
        nvlink_error_findings({gpu(0, {clean(0)}), gpu(2, {clean(4), link(5, 12, 0, 3, 0)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nvlink_errors");
    EXPECT_EQ(findings[0].severity, Severity::info);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{2});
    EXPECT_TRUE(says(findings[0], "link 5: 12 replays, 3 CRC flit errors")) << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("nvidia-smi nvlink -e -i 2"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("peergate doctor --probe"), std::string::npos);
}

// nvlink-errors-8x.json's GPU 2: 1,200 replays and 310 CRC errors on one link is a marginal
// link, more severe than GPU 5's 18 replays and 2 recoveries (issue 52: it was a note, below
// GPU 5's warning).
TEST(NvlinkErrors, ThousandsOfReplaysOnALinkAreAnError) {
    const auto findings = nvlink_error_findings(
        {gpu(2, {clean(4), link(5, 1200, 0, 310, 0)}), gpu(5, {link(9, 18, 2, 0, 0)})});
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{2});
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_TRUE(says(findings[0], "link 5: 1200 replays, 310 CRC flit errors"))
        << findings[0].message;
    EXPECT_TRUE(says(findings[0], "1000 or more")) << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("out of tensor-parallel groups"), std::string::npos);
    EXPECT_EQ(findings[1].gpus, std::vector<int>{5});
    EXPECT_EQ(findings[1].severity, Severity::warning);
}

// The thresholds, per counter of one link: a note below 100, a warning from 100, an error
// from 1000; a recovery a warning, 10 an error.
TEST(NvlinkErrors, EachCounterIsGradedAtItsThresholds) {
    const auto severity_of = [](model::LinkErrors errors) {
        const auto findings = nvlink_error_findings({gpu(0, {std::move(errors)})});
        EXPECT_EQ(findings.size(), 1U);
        return findings.empty() ? Severity::info : findings[0].severity;
    };
    EXPECT_EQ(severity_of(link(0, 99, 0, 0, 0)), Severity::info);
    EXPECT_EQ(severity_of(link(0, 100, 0, 0, 0)), Severity::warning);
    EXPECT_EQ(severity_of(link(0, 0, 0, 999, 0)), Severity::warning);
    EXPECT_EQ(severity_of(link(0, 0, 0, 1000, 0)), Severity::error);
    EXPECT_EQ(severity_of(link(0, 0, 0, 0, 1000)), Severity::error);
    EXPECT_EQ(severity_of(link(0, 0, 1, 0, 0)), Severity::warning);
    EXPECT_EQ(severity_of(link(0, 0, 9, 0, 0)), Severity::warning);
    EXPECT_EQ(severity_of(link(0, 0, 10, 0, 0)), Severity::error);
    EXPECT_EQ(severity_of(nvlink5(0, 0, 99)), Severity::info);
    EXPECT_EQ(severity_of(nvlink5(0, 0, 1000)), Severity::error);
    EXPECT_EQ(severity_of(nvlink5(0, 10, 0)), Severity::error);
}

// More of any counter never gives a milder finding (Severity orders error first).
TEST(NvlinkErrors, MoreCountsNeverGiveAMilderFinding) {
    for (std::size_t k = 0; k < model::kNvlinkCounters; ++k) {
        Severity previous = Severity::info;
        for (const std::uint64_t n : {1U, 5U, 9U, 10U, 50U, 99U, 100U, 500U, 999U, 1000U, 5000U}) {
            model::LinkErrors errors{.link = 0};
            errors.counts.value[k] = n;
            const auto findings = nvlink_error_findings({gpu(3, {errors})});
            ASSERT_EQ(findings.size(), 1U);
            EXPECT_LE(findings[0].severity, previous) << "counter " << k << " at " << n;
            previous = findings[0].severity;
        }
    }
}

// Neither the GPU's index or model nor its counter set changes the grade of the same counts.
TEST(NvlinkErrors, TheSameCountsGiveTheSameSeverityOnAnyGpu) {
    for (const auto& counts :
         {link(5, 1200, 0, 310, 0), link(9, 18, 2, 0, 0), link(1, 40, 0, 0, 0)}) {
        auto h100 = gpu(0, {counts});
        auto b200 = gpu(7, {counts});
        b200.name = "NVIDIA B200";
        const auto findings = nvlink_error_findings({h100, b200});
        ASSERT_EQ(findings.size(), 2U);
        EXPECT_EQ(findings[0].severity, findings[1].severity);
    }
    // NVLink5's effective errors and link recovery events grade as replays and recoveries do.
    const auto dl = nvlink_error_findings({gpu(0, {link(0, 1200, 0, 0, 0)})});
    const auto nv5 = nvlink_error_findings({gpu(1, {nvlink5(0, 0, 1200)})});
    ASSERT_EQ(dl.size(), 1U);
    ASSERT_EQ(nv5.size(), 1U);
    EXPECT_EQ(dl[0].severity, nv5[0].severity);
}

// Per link: a marginal link is one link, and counts spread thin over many links are each a
// note.
TEST(NvlinkErrors, LinksAreGradedOneByOneAndTheWorstDecides) {
    std::vector<model::LinkErrors> spread;
    for (int k = 0; k < 18; ++k) {
        spread.push_back(link(k, 60, 0, 0, 0));
    }
    auto findings = nvlink_error_findings({gpu(0, spread)});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::info);
    spread.push_back(link(18, 1000, 0, 0, 0));
    findings = nvlink_error_findings({gpu(0, spread)});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::error);
}

TEST(NvlinkErrors, ALinkThatRetrainedIsAWarningNamingEachLink) {
    const auto findings =
        nvlink_error_findings({gpu(5, {link(2, 1, 0, 0, 0), link(9, 18, 2, 0, 1)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_TRUE(says(findings[0],
                     "link 2: 1 replay; link 9: 18 replays, 2 recoveries, "
                     "1 CRC data error"))
        << findings[0].message;
    EXPECT_TRUE(says(findings[0], "retraining"));
}

TEST(NvlinkErrors, UnansweredCountsCountAsNone) {
    EXPECT_TRUE(nvlink_error_findings({gpu(1, {link(7, 0, 0, 0, std::nullopt)})}).empty());
    const auto findings =
        nvlink_error_findings({gpu(1, {link(7, std::nullopt, std::nullopt, 3, std::nullopt)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_TRUE(says(findings[0], "link 7: 3 CRC flit errors")) << findings[0].message;
}

TEST(NvlinkErrors, Nvlink5EffectiveErrorsAreANoteAndALinkRecoveryAWarning) {
    auto findings = nvlink_error_findings({gpu(2, {nvlink5(0, 0, 0), nvlink5(5, 0, 12)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::info);
    EXPECT_TRUE(says(findings[0], "link 5: 12 effective errors.")) << findings[0].message;
    EXPECT_TRUE(says(findings[0], "forward error correction")) << findings[0].message;
    findings = nvlink_error_findings({gpu(5, {nvlink5(9, 1, 3)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_TRUE(says(findings[0], "link 9: 1 link recovery event, 3 effective errors"))
        << findings[0].message;
}

TEST(NvlinkErrorsUnderLoad, AnNvlink5LinkRecoveryDuringTheProbeIsAnError) {
    const auto findings = nvlink_errors_under_load_findings({gpu(6, {nvlink5(3, 0, 0)})},
                                                            {gpu(6, {nvlink5(3, 1, 25)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_TRUE(says(findings[0], "link 3: +1 link recovery event, +25 effective errors"))
        << findings[0].message;
}

TEST(NvlinkErrors, FindingsComeInGpuOrder) {
    const auto findings =
        nvlink_error_findings({gpu(6, {link(0, 1, 0, 0, 0)}), gpu(3, {link(1, 0, 1, 0, 0)})});
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{3});
    EXPECT_EQ(findings[1].gpus, std::vector<int>{6});
}

TEST(NvlinkErrorsUnderLoad, CountsThatGrewAreAWarningWithWhatTheyGained) {
    const std::vector<GpuLinks> before{gpu(0, {clean(0)}), gpu(6, {clean(2), link(3, 5, 0, 7, 0)})};
    const std::vector<GpuLinks> after{gpu(0, {clean(0)}),
                                      gpu(6, {clean(2), link(3, 45, 0, 67, 0)})};
    const auto findings = nvlink_errors_under_load_findings(before, after);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nvlink_errors_under_load");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{6});
    EXPECT_TRUE(says(findings[0], "link 3: +40 replays, +60 CRC flit errors"))
        << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("peergate place --gpus"), std::string::npos);
}

// nvlink-errors-8x.json's GPU 6: +160 CRC flit errors during one probe is a marginal link.
TEST(NvlinkErrorsUnderLoad, AHundredOfOneKindDuringTheProbeIsAnError) {
    const auto findings = nvlink_errors_under_load_findings({gpu(6, {link(3, 0, 0, 0, 0)})},
                                                            {gpu(6, {link(3, 40, 0, 160, 0)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_TRUE(says(findings[0], "link 3: +40 replays, +160 CRC flit errors"))
        << findings[0].message;
}

// Where the load's duration is known, 100 resends a second or more is an error (DCGM's
// limit), whatever the total; fewer a second stays a warning.
TEST(NvlinkErrorsUnderLoad, ARateOfAHundredASecondIsAnError) {
    const std::vector<GpuLinks> before{gpu(6, {clean(3)})};
    const std::vector<GpuLinks> after{gpu(6, {link(3, 50, 0, 0, 0)})};
    auto findings = nvlink_errors_under_load_findings(before, after, "the probe moved data", 0.25);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_TRUE(says(findings[0], "grew over 0.25 s of transfers: link 3: +50 replays"))
        << findings[0].message;
    findings = nvlink_errors_under_load_findings(before, after, "the probe moved data", 10.0);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::warning);
    findings = nvlink_errors_under_load_findings(before, after);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::warning);
}

TEST(NvlinkErrorsUnderLoad, ARetrainDuringTheProbeIsAnError) {
    const auto findings = nvlink_errors_under_load_findings({gpu(1, {link(0, 0, 3, 0, 0)})},
                                                            {gpu(1, {link(0, 0, 4, 0, 0)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_TRUE(says(findings[0], "link 0: +1 recovery")) << findings[0].message;
}

TEST(NvlinkErrorsUnderLoad, StandingCountsThatDidNotGrowSayNothing) {
    const std::vector<GpuLinks> reads{gpu(5, {link(9, 18, 2, 0, 0)})};
    EXPECT_TRUE(nvlink_errors_under_load_findings(reads, reads).empty());
}

TEST(NvlinkErrorsUnderLoad, CountsResetOrUnansweredInBetweenSayNothing) {
    // A reset in between (a GPU reset, 'nvidia-smi nvlink -re') lowers the counts; a count
    // answered only once has nothing to compare with.
    EXPECT_TRUE(nvlink_errors_under_load_findings({gpu(0, {link(0, 900, 1, 0, 0)})},
                                                  {gpu(0, {link(0, 3, 0, 0, 0)})})
                    .empty());
    EXPECT_TRUE(nvlink_errors_under_load_findings({gpu(0, {link(0, std::nullopt, 0, 0, 0)})},
                                                  {gpu(0, {link(0, 50, 0, 0, 0)})})
                    .empty());
}

TEST(NvlinkErrorsUnderLoad, AGpuOrLinkReadOnceSaysNothing) {
    EXPECT_TRUE(nvlink_errors_under_load_findings({}, {gpu(0, {link(0, 50, 1, 0, 0)})}).empty());
    EXPECT_TRUE(
        nvlink_errors_under_load_findings({gpu(0, {clean(1)})}, {gpu(0, {link(0, 50, 1, 0, 0)})})
            .empty());
    EXPECT_TRUE(nvlink_errors_under_load_findings({gpu(0, {clean(0)})}, {}).empty());
}

}  // namespace
}  // namespace peergate::policy::doctor
