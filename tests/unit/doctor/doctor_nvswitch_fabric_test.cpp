// SPDX-License-Identifier: Apache-2.0
// nvswitch_fabric_not_ready and nvswitch_fabric_degraded: a GPU the fabric manager has not
// registered is an error (CUDA refuses to start), one kind of trouble per finding; a
// registered GPU whose health mask says degraded is a warning; a GPU outside a fabric is
// nothing to say.
#include "policy/doctor/doctor.hpp"
#include "policy/doctor/nvswitch_fabric.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::doctor {
namespace {

using model::FabricState;
using model::GpuFabric;
using model::Severity;

GpuFabric in(FabricState state, int status = 0) {
    return GpuFabric{.state = state, .status = status, .health_mask = 0};
}

std::map<int, GpuFabric> board(const GpuFabric& fabric, int gpus = 8) {
    std::map<int, GpuFabric> out;
    for (int g = 0; g < gpus; ++g) {
        out[g] = fabric;
    }
    return out;
}

TEST(DoctorNvswitchFabric, ARegisteredBoardOrNoFabricSaysNothing) {
    EXPECT_TRUE(
        nvswitch_fabric_findings(board(in(FabricState::completed)), "580.95.05", 0).empty());
    EXPECT_TRUE(nvswitch_fabric_findings({}, "580.95.05", 0).empty());
    EXPECT_TRUE(
        nvswitch_fabric_findings(board(in(FabricState::not_supported)), "580.95.05", 0).empty());
}

TEST(DoctorNvswitchFabric, NoFabricManagerIsOneErrorNamingEveryGpuAndThePackage) {
    const auto findings =
        nvswitch_fabric_findings(board(in(FabricState::in_progress)), "580.95.05", 0);
    ASSERT_EQ(findings.size(), 1U);
    const auto& f = findings[0];
    EXPECT_EQ(f.id(), "nvswitch_fabric_not_ready");
    EXPECT_EQ(f.severity, Severity::error);
    EXPECT_EQ(f.gpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_NE(f.message.find("GPUs 0,1,2,3,4,5,6,7 are still registering"), std::string::npos)
        << f.message;
    EXPECT_NE(f.message.find("CUDA_ERROR_SYSTEM_NOT_READY"), std::string::npos);
    EXPECT_NE(f.remedy.find("nvidia-fabricmanager-580, version 580.95.05"), std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("systemctl enable --now nvidia-fabricmanager"), std::string::npos);
    EXPECT_NE(f.remedy.find("nvlsm"), std::string::npos);
    EXPECT_NE(f.remedy.find("FABRIC_MODE=1"), std::string::npos);
}

TEST(DoctorNvswitchFabric, AnUnknownDriverVersionStillSaysWhatToRun) {
    const auto findings = nvswitch_fabric_findings(board(in(FabricState::not_started), 1), "", 0);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_NE(findings[0].message.find("GPU 0 is not registered"), std::string::npos)
        << findings[0].message;
    EXPECT_EQ(findings[0].remedy.find("package"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("Run the fabric manager of the driver's exact version:"),
              std::string::npos)
        << findings[0].remedy;
}

TEST(DoctorNvswitchFabric, EachKindOfTroubleIsAFindingOfItsOwn) {
    auto fabric = board(in(FabricState::completed));
    fabric[2] = in(FabricState::completed, 999);
    fabric[5] = in(FabricState::not_started);
    fabric[6] = in(FabricState::unknown);
    fabric[7] = in(FabricState::not_started);
    const auto findings = nvswitch_fabric_findings(fabric, "580.95.05", 0);
    ASSERT_EQ(findings.size(), 3U);
    EXPECT_EQ(findings[0].gpus, std::vector<int>{2});
    EXPECT_NE(findings[0].message.find("failure status 999"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("nvidia-smi -r"), std::string::npos);
    EXPECT_EQ(findings[1].gpus, (std::vector<int>{5, 7}));
    EXPECT_NE(findings[1].message.find("Not Started"), std::string::npos);
    EXPECT_EQ(findings[2].gpus, std::vector<int>{6});
    EXPECT_NE(findings[2].message.find("does not know"), std::string::npos);
    for (const auto& f : findings) {
        EXPECT_EQ(f.severity, Severity::error);
    }
}

TEST(DoctorNvswitchFabric, ADegradedButRegisteredFabricIsAWarning) {
    auto fabric = board(in(FabricState::completed));
    fabric[1].health_mask = 0x1;   // DEGRADED_BW TRUE
    fabric[4].health_mask = 0x10;  // ROUTE_UNHEALTHY TRUE
    fabric[6].health_mask = 0x2;   // DEGRADED_BW FALSE
    const auto findings = nvswitch_fabric_findings(fabric, "580.95.05", 0);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nvswitch_fabric_degraded");
    EXPECT_EQ(findings[0].severity, Severity::warning);
    EXPECT_EQ(findings[0].gpus, (std::vector<int>{1, 4}));
}

// An HGX A100: NVML has no fabric state before Hopper, so cuInit's answer is all there is.
TEST(DoctorNvswitchFabric, CudaNotReadyWithoutNvmlStatesIsOneFindingAboutTheHost) {
    const auto findings = nvswitch_fabric_findings({}, "535.183.01", 802);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0].id(), "nvswitch_fabric_not_ready");
    EXPECT_EQ(findings[0].severity, Severity::error);
    EXPECT_TRUE(findings[0].gpus.empty());
    EXPECT_NE(findings[0].message.find("CUDA_ERROR_SYSTEM_NOT_READY"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("nvidia-fabricmanager-535"), std::string::npos);
    EXPECT_TRUE(nvswitch_fabric_findings({}, "535.183.01", 803).empty()) << "another cause";
    const auto named = nvswitch_fabric_findings(board(in(FabricState::in_progress)), "", 802);
    ASSERT_EQ(named.size(), 1U) << "NVML's states already say which GPUs";
    EXPECT_EQ(named[0].gpus.size(), 8U);
}

TEST(DoctorNvswitchFabric, AnUnregisteredGpuMakesTheVerdictProblems) {
    DoctorInput input;
    input.fabric = board(in(FabricState::in_progress), 2);
    const auto report = diagnose(input);
    EXPECT_EQ(report.verdict, Verdict::problems);
    input.selection = {3};  // a GPU the fabric map does not hold: nothing about it
    EXPECT_NE(diagnose(input).verdict, Verdict::problems);
}

}  // namespace
}  // namespace peergate::policy::doctor
