// SPDX-License-Identifier: Apache-2.0
// mig_enabled and mig_mode_pending: MIG on GPUs of a multi-GPU selection is a warning (their
// peer traffic goes through host memory); a mode that changes at the next reset is a note.
#include "policy/doctor/doctor.hpp"
#include "policy/doctor/mig.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::doctor {
namespace {

using model::MigMode;
using model::Severity;

TEST(DoctorMig, MigOnTwoOfFourGpusIsAWarningNamingThem) {
    const std::map<int, MigMode> mig{{0, {.enabled = false, .pending = false}},
                                     {1, {.enabled = true, .pending = true}},
                                     {2, {.enabled = false, .pending = false}},
                                     {3, {.enabled = true, .pending = true}}};
    const auto findings = mig_findings(mig, 4);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "mig_enabled");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, (std::vector<int>{1, 3}));
    EXPECT_NE(findings[0].message.find("GPUs 1,3 have MIG enabled"), std::string::npos)
        << findings[0].message;
    EXPECT_NE(findings[0].remedy.find("nvidia-smi -i 1,3 -mig 0"), std::string::npos);
}

TEST(DoctorMig, OneGpuOrMigOffSaysNothing) {
    EXPECT_TRUE(mig_findings({{0, {.enabled = true, .pending = true}}}, 1).empty());
    EXPECT_TRUE(mig_findings({{0, {}}, {1, {}}}, 2).empty());
    EXPECT_TRUE(mig_findings({}, 8).empty());
}

TEST(DoctorMig, AModeChangeWaitingForAResetIsANote) {
    const auto findings = mig_findings(
        {{0, {.enabled = false, .pending = true}}, {1, {.enabled = true, .pending = false}}}, 2);
    ASSERT_EQ(findings.size(), 2U);
    EXPECT_EQ(findings[0].id(), "mig_enabled");
    EXPECT_EQ(findings[0].gpus, std::vector<int>{1});
    EXPECT_EQ(findings[1].id(), "mig_mode_pending");
    EXPECT_EQ(findings[1].severity, Severity::info);
    EXPECT_EQ(findings[1].gpus, (std::vector<int>{0, 1}));
}

TEST(DoctorMig, OnlyTheExaminedGpusCountAndMigLeavesTheVerdictAlone) {
    DoctorInput input;
    model::Topology topology;
    for (int g = 0; g < 4; ++g) {
        topology.gpus.push_back(model::Gpu{.index = g});
    }
    input.discovery.topology = topology;
    input.mig = {{2, {.enabled = true, .pending = true}}};
    input.selection = {0, 1};
    auto report = diagnose(input);
    for (const auto& finding : report.findings) {
        EXPECT_NE(finding.id(), "mig_enabled") << "GPU 2 is not examined";
    }
    input.selection = {1, 2};
    report = diagnose(input);
    const auto mig = std::find_if(report.findings.begin(),
                                  report.findings.end(),
                                  [](const model::Finding& f) { return f.id() == "mig_enabled"; });
    ASSERT_NE(mig, report.findings.end());
    EXPECT_EQ(mig->gpus, std::vector<int>{2});
}

}  // namespace
}  // namespace peergate::policy::doctor
