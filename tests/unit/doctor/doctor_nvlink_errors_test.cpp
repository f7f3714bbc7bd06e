// SPDX-License-Identifier: Apache-2.0
// NVLink error counters (policy/doctor/nvlink_errors.cpp): what the links count since the
// driver loaded (a warning once a link retrained, else info), and what they gained while the
// probe moved data (an error once a link retrained, else a warning); counts that fell, were
// not answered, or belong to a link or GPU read only once say nothing.
#include "policy/doctor/nvlink_errors.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
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

TEST(NvlinkErrors, ReplaysAndCrcErrorsAloneAreANote) {
    const auto findings =
        nvlink_error_findings({gpu(0, {clean(0)}), gpu(2, {clean(4), link(5, 1200, 0, 310, 0)})});
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nvlink_errors");
    EXPECT_EQ(findings[0].severity, Severity::info);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{2});
    EXPECT_TRUE(says(findings[0], "link 5: 1200 replays, 310 CRC flit errors"))
        << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("nvidia-smi nvlink -e -i 2"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("peergate doctor --probe"), std::string::npos);
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
                                      gpu(6, {clean(2), link(3, 45, 0, 167, 0)})};
    const auto findings = nvlink_errors_under_load_findings(before, after);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nvlink_errors_under_load");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{6});
    EXPECT_TRUE(says(findings[0], "link 3: +40 replays, +160 CRC flit errors"))
        << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("peergate place --gpus"), std::string::npos);
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
