// SPDX-License-Identifier: Apache-2.0
// What NCCL's P2P diagnostics and RAS lines mean (policy/nccl/diagnostics): each tested
// edge's result beside the transports, a failed edge as an error naming the pair and the
// remedy NCCL does not apply itself, RAS reports of dead or missing ranks as warnings.
#include "nccl_log_support.hpp"
#include "policy/nccl/analysis.hpp"
#include "policy/nccl/diagnostics.hpp"
#include "policy/nccl/findings.hpp"
#include "support/fixture_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace peergate::policy::nccl {
namespace {

using model::Severity;

NcclAnalysis diag_analysis_of(const std::string& fixture) {
    const auto log = test::parse_nccl_log(test::read_fixture("nccl", fixture));
    return analyze_nccl_log(log, nullptr);
}

std::vector<const model::Finding*> diag_findings_coded(const NcclAnalysis& analysis,
                                                       model::FindingCode code) {
    std::vector<const model::Finding*> out;
    for (const auto& finding : analysis.findings) {
        if (finding.code == code) {
            out.push_back(&finding);
        }
    }
    return out;
}

const NcclDiagEdge* diag_edge(const NcclAnalysis& analysis, int src, int dst) {
    const auto found = std::find_if(
        analysis.diagnostics.begin(), analysis.diagnostics.end(), [&](const NcclDiagEdge& e) {
            return e.src_rank == src && e.dst_rank == dst;
        });
    return found == analysis.diagnostics.end() ? nullptr : &*found;
}

TEST(NcclDiagFindings, EveryEdgeOfAPassingReportPasses) {
    const auto analysis = diag_analysis_of("handwritten-diag-p2p-pass.log");
    ASSERT_EQ(analysis.diagnostics.size(), 6U);
    for (const auto& edge : analysis.diagnostics) {
        EXPECT_EQ(edge.result, NcclDiagResult::pass) << edge.src_rank << "->" << edge.dst_rank;
        EXPECT_EQ(edge.path, "NVL");
        EXPECT_EQ(edge.host, "gpu07");
        EXPECT_TRUE(edge.text.starts_with("p2p: verified P2P access")) << edge.text;
    }
    EXPECT_TRUE(diag_findings_coded(analysis, kNcclDiagEdgeFailed).empty());
}

TEST(NcclDiagFindings, AFailedEdgeIsAnErrorNamingThePairAndTheRemedy) {
    const auto analysis = diag_analysis_of("handwritten-diag-p2p-write-mismatch.log");
    ASSERT_EQ(analysis.diagnostics.size(), 12U);
    const auto* failed = diag_edge(analysis, 2, 3);
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(failed->result, NcclDiagResult::fail);
    EXPECT_EQ(failed->check, "write mismatch");
    EXPECT_EQ(failed->src_nvml_dev, 2);
    EXPECT_EQ(failed->dst_nvml_dev, 3);
    EXPECT_TRUE(failed->text.starts_with("p2p: write mismatch srcRank=2")) << failed->text;
    // The report counts one failure and names it: every other tested edge passed.
    EXPECT_EQ(diag_edge(analysis, 3, 2)->result, NcclDiagResult::pass);
    EXPECT_EQ(diag_edge(analysis, 0, 1)->result, NcclDiagResult::pass);
    const auto findings = diag_findings_coded(analysis, kNcclDiagEdgeFailed);
    ASSERT_EQ(findings.size(), 1U);
    EXPECT_EQ(findings[0]->severity, Severity::error);
    EXPECT_EQ(findings[0]->gpus, (std::vector<int>{2, 3}));
    EXPECT_NE(findings[0]->message.find("rank 2"), std::string::npos) << findings[0]->message;
    EXPECT_NE(findings[0]->message.find("rank 3"), std::string::npos);
    EXPECT_NE(findings[0]->message.find("write mismatch"), std::string::npos);
    EXPECT_NE(findings[0]->message.find("does not veto"), std::string::npos);
    EXPECT_NE(findings[0]->remedy.find("NCCL_P2P_DISABLE=1"), std::string::npos);
    EXPECT_NE(findings[0]->remedy.find("NCCL_P2P_LEVEL"), std::string::npos);
    EXPECT_TRUE(analysis.has_error());
}

TEST(NcclDiagFindings, WithoutTheReportATestedEdgeIsUnknown) {
    const auto log = test::parse_nccl_log(
        "h:1:1 [0] NCCL INFO Diagnostics P2P write srcRank=0 srcCudaDev=0 srcNvmlDev=0 "
        "dstRank=1 dstCudaDev=1 dstNvmlDev=1 path=PIX handle=DIRECT topoRead=0\n");
    const auto edges = diagnostic_edges(log);
    ASSERT_EQ(edges.size(), 1U);
    EXPECT_EQ(edges[0].result, NcclDiagResult::unknown);
}

TEST(NcclDiagFindings, AFailureTheReportCountsButDoesNotNameLeavesTheRestUnknown) {
    const std::string edge =
        "srcRank=0 srcCudaDev=0 srcNvmlDev=0 dstRank=1 dstCudaDev=1 dstNvmlDev=1 path=PIX "
        "handle=DIRECT";
    const auto log = test::parse_nccl_log(
        "h:1:1 [0] NCCL INFO Diagnostics P2P write " + edge +
        " topoRead=0\nh:1 NCCL DIAG [INFO] p2p: only 1/2 GPU-to-GPU peer accesses passed "
        "verification\n");
    const auto edges = diagnostic_edges(log);
    ASSERT_EQ(edges.size(), 1U);
    EXPECT_EQ(edges[0].result, NcclDiagResult::unknown);
}

TEST(NcclDiagFindings, AnIndirectPairIsSkippedNotPassed) {
    const auto log = test::parse_nccl_log(
        "h:1:1 [0] NCCL INFO Diagnostics P2P skip srcRank=0 srcCudaDev=0 srcNvmlDev=0 "
        "dstRank=2 dstCudaDev=2 dstNvmlDev=2 path=PXN handle=DIRECT topoRead=0 reason=indirect\n"
        "h:1 NCCL DIAG [OK]   p2p: verified P2P access in both directions between every GPU "
        "pair (2 peer accesses)\n");
    const auto edges = diagnostic_edges(log);
    ASSERT_EQ(edges.size(), 1U);
    EXPECT_EQ(edges[0].result, NcclDiagResult::skipped);
}

TEST(NcclDiagFindings, RasDeadMissingAndUnresponsiveAreWarnings) {
    const auto analysis = diag_analysis_of("handwritten-ras-dead-process.log");
    for (const model::FindingCode code : {kNcclRasProcessDead,
                                          kNcclRasRanksMissing,
                                          kNcclRasProcessUnresponsive,
                                          kNcclRasCheckIssue}) {
        const auto found = diag_findings_coded(analysis, code);
        ASSERT_EQ(found.size(), 1U) << model::id(code);
        EXPECT_EQ(found[0]->severity, Severity::warning) << model::id(code);
    }
    const auto dead = diag_findings_coded(analysis, kNcclRasProcessDead);
    EXPECT_NE(dead[0]->message.find("10.20.0.12"), std::string::npos) << dead[0]->message;
    EXPECT_NE(diag_findings_coded(analysis, kNcclRasRanksMissing)[0]->message.find("rank 1"),
              std::string::npos);
    // Rank 1 never reached Init COMPLETE (nccl_init_incomplete, an error of its own); no RAS
    // finding is one.
    for (const auto& finding : analysis.findings) {
        if (finding.id().starts_with("nccl_ras_")) {
            EXPECT_EQ(finding.severity, Severity::warning) << finding.id();
        }
    }
}

}  // namespace
}  // namespace peergate::policy::nccl
