// SPDX-License-Identifier: Apache-2.0
// The node's one verdict (policy/doctor/node_state.hpp, issue 35 item 1): CUDA that cannot
// start makes the node unusable whatever the gate's P2P answer, and otherwise the gate decides.
#include "policy/doctor/node_state.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::doctor {
namespace {

DoctorReport report_with(const std::string& code, model::Severity severity) {
    DoctorReport report;
    report.verdict = Verdict::problems;
    report.findings.push_back(model::Finding{
        .code = *model::parse_finding_code(code), .severity = severity, .message = code});
    return report;
}

TEST(NodeState, TheGateDecidesWhereCudaStarts) {
    DoctorReport healthy;
    healthy.verdict = Verdict::healthy;
    const auto allowed = node_verdict(healthy, {true, "every_pair_nvlink", "NVLink"});
    EXPECT_EQ(allowed.state, NodeState::p2p_allowed);
    EXPECT_EQ(allowed.code, "every_pair_nvlink");
    const auto vetoed =
        node_verdict(report_with("pcie_p2p_under_translating_iommu", model::Severity::error),
                     {false, "pcie_iommu", "IOMMU"});
    EXPECT_EQ(vetoed.state, NodeState::p2p_vetoed);
    EXPECT_TRUE(usable(vetoed.state));
    EXPECT_EQ(to_string(vetoed.state), "p2p-vetoed");
}

TEST(NodeState, CudaThatCannotStartMakesTheNodeUnusable) {
    const auto gate = node_verdict(DoctorReport{}, {false, "cuda_unavailable", "cuInit failed"});
    EXPECT_EQ(gate.state, NodeState::unusable);
    EXPECT_EQ(gate.reason, "cuInit failed");
    for (const char* code :
         {"nvswitch_fabric_not_ready", "driver_version_mismatch", "no_nvidia_driver"}) {
        // Even a gate that allowed P2P (a capability-only read) does not make it usable.
        const auto verdict = node_verdict(report_with(code, model::Severity::error),
                                          {true, "every_pair_nvlink", ""});
        EXPECT_EQ(verdict.state, NodeState::unusable) << code;
        EXPECT_EQ(verdict.code, code);
        EXPECT_FALSE(usable(verdict.state));
        EXPECT_EQ(to_string(verdict.state), "unusable");
    }
}

}  // namespace
}  // namespace peergate::policy::doctor
