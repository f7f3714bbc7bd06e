// SPDX-License-Identifier: Apache-2.0
// fleet health's Slurm side: what scontrol says of a node's drain (sources/slurm) and what the
// check does about it (policy/slurm_health): drain with a "peergate:" reason, resume only its
// own drains, never a person's.
#include "policy/fleet/slurm_health.hpp"

#include "sources/slurm/scontrol_node.hpp"
#include "support/fixture_files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace peergate {
namespace {

using policy::fleet::SlurmAction;

TEST(ScontrolNode, RealDrainedNodes) {
    const auto ours = sources::slurm::parse_scontrol_node(
        test::read_fixture("slurm", "scontrol-show-node-drained-by-peergate.txt"));
    ASSERT_TRUE(ours.has_value());
    EXPECT_EQ(ours->name, "n2");
    EXPECT_EQ(ours->state, "IDLE+DRAIN");
    EXPECT_TRUE(ours->draining());
    EXPECT_THAT(ours->reason,
                testing::StartsWith("peergate: pcie_p2p_under_translating_iommu GPU0,GPU1"));
    const auto admin = sources::slurm::parse_scontrol_node(
        test::read_fixture("slurm", "scontrol-show-node-drained-by-admin.txt"));
    ASSERT_TRUE(admin.has_value());
    EXPECT_EQ(admin->reason, "admin: maintenance [root@2026-11-30T02:29:31]");
}

TEST(ScontrolNode, IdleErrorAndOddStates) {
    const auto idle = sources::slurm::parse_scontrol_node(
        "NodeName=n3 Arch=x86_64\n   State=IDLE ThreadsPerCore=1\n   Reason=(null)\n");
    ASSERT_TRUE(idle.has_value());
    EXPECT_FALSE(idle->draining());
    EXPECT_EQ(idle->reason, "");
    EXPECT_EQ(sources::slurm::parse_scontrol_node("Node n9 not found\n"), std::nullopt);
    EXPECT_TRUE((sources::slurm::NodeState{.state = "MIXED+DRAINING"}).draining());
    EXPECT_FALSE((sources::slurm::NodeState{.state = "DOWN+NOT_RESPONDING"}).draining());
}

policy::doctor::DoctorReport failing() {
    policy::doctor::DoctorReport report;
    report.verdict = policy::doctor::Verdict::problems;
    report.findings = {{.code = model::FindingCode::xid,
                        .severity = model::Severity::warning,
                        .gpus = {1},
                        .xid = 13},
                       {.code = model::FindingCode::probe_data_lost,
                        .severity = model::Severity::error,
                        .gpus = {0, 1}},
                       {.code = model::FindingCode::pcie_p2p_under_translating_iommu,
                        .severity = model::Severity::error}};
    return report;
}

policy::doctor::DoctorReport healthy() {
    policy::doctor::DoctorReport report;
    report.verdict = policy::doctor::Verdict::healthy;
    return report;
}

TEST(SlurmHealth, FailingNodeDrainsItselfWithAPeergateReason) {
    const auto plan = policy::fleet::plan_health(failing(), policy::fleet::SlurmNodeDrain{});
    EXPECT_FALSE(plan.healthy);
    EXPECT_EQ(plan.line, "fail: probe_data_lost GPU0,GPU1 and 1 more errors");
    EXPECT_EQ(plan.action, SlurmAction::drain);
    EXPECT_EQ(plan.reason,
              "peergate: probe_data_lost GPU0,GPU1 and 1 more errors; run peergate doctor");
}

TEST(SlurmHealth, APersonsDrainStands) {
    const policy::fleet::SlurmNodeDrain admin{.draining = true,
                                              .reason = "admin: maintenance [root@x]"};
    EXPECT_EQ(policy::fleet::plan_health(failing(), admin).action, SlurmAction::none);
    EXPECT_EQ(policy::fleet::plan_health(healthy(), admin).action, SlurmAction::none);
}

TEST(SlurmHealth, HealthyAgainResumesOnlyPeergatesDrain) {
    const policy::fleet::SlurmNodeDrain ours{.draining = true,
                                             .reason = "peergate: probe_data_lost [root@x]"};
    const auto plan = policy::fleet::plan_health(healthy(), ours);
    EXPECT_TRUE(plan.healthy);
    EXPECT_EQ(plan.line, "ok: P2P layers agree, no error");
    EXPECT_EQ(plan.action, SlurmAction::resume);
    EXPECT_EQ(policy::fleet::plan_health(healthy(), policy::fleet::SlurmNodeDrain{}).action,
              SlurmAction::none);
    EXPECT_EQ(policy::fleet::plan_health(failing(), ours).action,
              SlurmAction::drain);  // reason renewed
}

// The time in "[root@time]" says when the node first failed; the same reason is not written
// again at every health check.
TEST(SlurmHealth, TheSameReasonIsNotWrittenAgain) {
    const std::string reason =
        "peergate: probe_data_lost GPU0,GPU1 and 1 more errors; run peergate doctor";
    const policy::fleet::SlurmNodeDrain drained{.draining = true,
                                                .reason = reason + " [root@2026-11-30T02:29:30]"};
    const auto plan = policy::fleet::plan_health(failing(), drained);
    EXPECT_FALSE(plan.healthy);
    EXPECT_EQ(plan.action, SlurmAction::none);
    EXPECT_EQ(plan.why, "already drained by peergate for this reason");
    const policy::fleet::SlurmNodeDrain bare{.draining = true, .reason = reason};  // no [user@time]
    EXPECT_EQ(policy::fleet::plan_health(failing(), bare).action, SlurmAction::none);
    const policy::fleet::SlurmNodeDrain longer{.draining = true,
                                               .reason = reason + " and more [x]"};
    EXPECT_EQ(policy::fleet::plan_health(failing(), longer).action, SlurmAction::drain);
}

TEST(SlurmHealth, InconclusiveFailsAndWithoutDrainNothingIsDone) {
    policy::doctor::DoctorReport report;
    report.verdict = policy::doctor::Verdict::inconclusive;
    const auto plan = policy::fleet::plan_health(report, std::nullopt);
    EXPECT_EQ(plan.line, "fail: doctor verdict inconclusive");
    EXPECT_EQ(plan.action, SlurmAction::none);
    auto long_code = failing();
    long_code.findings[1].gpus = std::vector<int>(300, 7);
    EXPECT_LE(policy::fleet::plan_health(long_code, policy::fleet::SlurmNodeDrain{}).reason.size(),
              200U);
}

}  // namespace
}  // namespace peergate
