// SPDX-License-Identifier: Apache-2.0
// NCCL 2.31's P2P diagnostics lines and the RAS lines (sources/nccl/nccl_diag,
// nccl_ras_lines, nccl_diag_records), in the shapes NCCL's format strings print
// (tests/fixtures/README.md says where each came from), and through the whole parser with
// its budget and merge.
#include "sources/nccl/nccl_diag.hpp"

#include "nccl_log_support.hpp"
#include "sources/nccl/nccl_log_parser.hpp"
#include "sources/nccl/nccl_ras_lines.hpp"
#include "support/fixture_files.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sources::nccl {
namespace {

using model::NcclDiagKind;
using model::NcclRasKind;

constexpr const char* kWriteMismatch =
    "[INFO] p2p: write mismatch srcRank=2 srcCudaDev=2 srcNvmlDev=6 dstRank=3 dstCudaDev=3 "
    "dstNvmlDev=7 path=PIX handle=LEGACY_CUDA_IPC expected=0x4000000100000003 "
    "got=0x0000000000000000 verify=0x0000000000000000; check the affected pair with "
    "'nvidia-smi topo -p2p p', then check Linux bare-metal IOMMU mode and PCIe ACS settings";

TEST(NcclDiag, ReadsATestedEdgeFromItsInfoLine) {
    const auto line = parse_p2p_diagnostics(
        "Diagnostics P2P write srcRank=0 srcCudaDev=0 srcNvmlDev=4 dstRank=1 dstCudaDev=1 "
        "dstNvmlDev=5 path=NVL handle=CUMEM_POSIX_FD topoRead=0");
    ASSERT_TRUE(line.has_value());
    EXPECT_EQ(line->kind, NcclDiagKind::tested);
    EXPECT_EQ(line->check, "write");
    EXPECT_EQ(line->src_rank, 0);
    EXPECT_EQ(line->dst_rank, 1);
    EXPECT_EQ(line->src_nvml_dev, 4);
    EXPECT_EQ(line->dst_nvml_dev, 5);
    EXPECT_EQ(line->dst_cuda_dev, 1);
    EXPECT_EQ(line->path, "NVL");
    EXPECT_EQ(line->handle, "CUMEM_POSIX_FD");
    EXPECT_FALSE(line->problem);
}

TEST(NcclDiag, AnImportThatFailedIsNotATest) {
    const auto failed = parse_p2p_diagnostics(
        "Diagnostics P2P import srcRank=0 srcCudaDev=0 srcNvmlDev=0 dstRank=1 dstCudaDev=1 "
        "dstNvmlDev=1 path=SYS handle=LEGACY_CUDA_IPC topoRead=0 import=0 reason=import");
    ASSERT_TRUE(failed.has_value());
    EXPECT_EQ(failed->kind, NcclDiagKind::failed);
    EXPECT_EQ(failed->check, "import");
    const auto skipped = parse_p2p_diagnostics(
        "Diagnostics P2P skip srcRank=4 srcCudaDev=3 srcNvmlDev=14 dstRank=5 dstCudaDev=5 "
        "dstNvmlDev=15 path=PIX handle=LEGACY_CUDA_IPC topoRead=0 reason=indirect");
    ASSERT_TRUE(skipped.has_value());
    EXPECT_EQ(skipped->kind, NcclDiagKind::skipped);
    EXPECT_EQ(skipped->dst_rank, 5);
}

TEST(NcclDiag, ReadsAFailedEdgeWithNcclsWords) {
    const auto line = parse_p2p_diagnostics(kWriteMismatch);
    ASSERT_TRUE(line.has_value());
    EXPECT_EQ(line->kind, NcclDiagKind::failed);
    EXPECT_EQ(line->check, "write mismatch");
    EXPECT_EQ(line->src_rank, 2);
    EXPECT_EQ(line->dst_rank, 3);
    EXPECT_EQ(line->src_nvml_dev, 6);
    EXPECT_EQ(line->path, "PIX");
    EXPECT_TRUE(line->problem);
    EXPECT_TRUE(line->text.starts_with("p2p: write mismatch srcRank=2"));
    for (const char* kind : {"read mismatch",
                             "peer-memory import failed",
                             "destination buffer unavailable",
                             "local CUDA setup failed",
                             "topology check failed",
                             "launch/check failed"}) {
        const auto other = parse_p2p_diagnostics(std::string("[INFO] p2p: ") + kind +
                                                 " srcRank=1 srcCudaDev=1 srcNvmlDev=1 dstRank=0 "
                                                 "dstCudaDev=0 dstNvmlDev=0 path=NVL handle=DIRECT "
                                                 "reason=x; advice");
        ASSERT_TRUE(other.has_value()) << kind;
        EXPECT_EQ(other->kind, NcclDiagKind::failed) << kind;
        EXPECT_EQ(other->check, kind);
        EXPECT_EQ(other->src_rank, 1) << kind;
    }
}

TEST(NcclDiag, ReadsTheSummaryAndOtherReportLines) {
    const auto ok = parse_p2p_diagnostics(
        "[OK]   p2p: verified P2P access in both directions between every GPU pair (56 peer "
        "accesses)");
    ASSERT_TRUE(ok.has_value());
    EXPECT_EQ(ok->kind, NcclDiagKind::report);
    EXPECT_EQ(ok->passed, 56U);
    EXPECT_EQ(ok->tested, 56U);
    EXPECT_FALSE(ok->problem);
    const auto partial = parse_p2p_diagnostics(
        "[INFO] p2p: only 52/56 GPU-to-GPU peer accesses passed verification");
    ASSERT_TRUE(partial.has_value());
    EXPECT_EQ(partial->passed, 52U);
    EXPECT_EQ(partial->tested, 56U);
    EXPECT_TRUE(partial->problem);
    const auto setup = parse_p2p_diagnostics("[INFO] p2p: setup failed on rank 3 result=2");
    ASSERT_TRUE(setup.has_value());
    EXPECT_EQ(setup->kind, NcclDiagKind::report);
    EXPECT_TRUE(setup->problem);
    EXPECT_FALSE(setup->tested.has_value());
    EXPECT_FALSE(
        parse_p2p_diagnostics("[OK]   GPU inventory: 8x NVIDIA H100 per node").has_value());
    EXPECT_FALSE(parse_p2p_diagnostics("Channel 00/0 : 0[0] -> 1[1] via P2P/IPC").has_value());
    EXPECT_FALSE(parse_p2p_diagnostics("Diagnostics P2P write srcRank=x").has_value());
}

TEST(NcclDiag, FindsTheMarkerAndTheHostBeforeIt) {
    const auto plain = split_diag_marker("gpu07:51200 NCCL DIAG [OK]   p2p: verified");
    ASSERT_TRUE(plain.has_value());
    EXPECT_EQ(plain->host, "gpu07");
    EXPECT_EQ(plain->rest, "[OK]   p2p: verified");
    const auto logged = split_diag_marker("2026-05-05 06:16:47,001 - INFO - n1:9 NCCL DIAG x");
    ASSERT_TRUE(logged.has_value());
    EXPECT_EQ(logged->host, "n1");
    const auto bare = split_diag_marker("NCCL DIAG [INFO] p2p: only 1/2 GPU-to-GPU");
    ASSERT_TRUE(bare.has_value());
    EXPECT_EQ(bare->host, "");
    EXPECT_FALSE(split_diag_marker("NCCL INFO Channel 00").has_value());
    EXPECT_FALSE(split_diag_marker("NCCL DIAGNOSTICS").has_value());
}

TEST(NcclRasLines, ReadsTheRasInfoLines) {
    const auto dead = parse_ras_line(
        "RAS declaring peer 10.20.0.12<28028> as DEAD; rasDeadPeersHash 0x8c41f2d07a93e615");
    ASSERT_TRUE(dead.has_value());
    EXPECT_EQ(dead->kind, NcclRasKind::dead);
    EXPECT_EQ(dead->node, "10.20.0.12<28028>");
    const auto slow = parse_ras_line(
        "RAS keep-alive timeout warning (5s) on socket connection with 10.20.0.12<28028>");
    ASSERT_TRUE(slow.has_value());
    EXPECT_EQ(slow->kind, NcclRasKind::unresponsive);
    EXPECT_EQ(slow->node, "10.20.0.12<28028>");
    EXPECT_FALSE(parse_ras_line("RAS handling local addRanks request (old nRasPeers 0)"));
}

TEST(NcclRasLines, ReadsAnNcclrasReportsErrorsAndAMonitorEvent) {
    const auto process = parse_ras_line("  Process 3487984 on node 172.16.64.213 managing GPU 5");
    ASSERT_TRUE(process.has_value());
    EXPECT_EQ(process->kind, NcclRasKind::missing);
    EXPECT_EQ(process->pid, 3487984);
    EXPECT_EQ(process->node, "172.16.64.213");
    EXPECT_EQ(process->gpu, 5);
    const auto event = parse_ras_line(
        "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1");
    ASSERT_TRUE(event.has_value());
    EXPECT_EQ(event->kind, NcclRasKind::dead);
    EXPECT_EQ(event->pid, 1524345);
    const auto rank = parse_ras_line("  The missing rank: 21");
    ASSERT_TRUE(rank.has_value());
    EXPECT_EQ(rank->kind, NcclRasKind::missing);
    EXPECT_EQ(rank->rank, 21);
    EXPECT_EQ(parse_ras_line("  1 job process is considered dead (unreachable via the RAS "
                             "network)")
                  ->kind,
              NcclRasKind::dead);
    EXPECT_EQ(parse_ras_line("  Missing communicator data from 1 job process")->kind,
              NcclRasKind::missing);
    EXPECT_EQ(parse_ras_line("  Encountered 2 communication timeouts while gathering "
                             "communicator data")
                  ->kind,
              NcclRasKind::timeout);
    EXPECT_EQ(parse_ras_line("  Communicator ranks have different status")->kind,
              NcclRasKind::mismatch);
    EXPECT_FALSE(parse_ras_line("Process group initialised").has_value());
    EXPECT_FALSE(parse_ras_line("  Rank 0 -- GPU 0 managed by process 483072 on node x"));
}

TEST(NcclRasLines, ReadsTheRasDiagnosticsChecksButNotP2p) {
    const auto ok = parse_ras_line(
        "[OK]   CUDA driver version: 13000 consistent across 8 ranks in comm 0x1234");
    ASSERT_TRUE(ok.has_value());
    EXPECT_EQ(ok->kind, NcclRasKind::check_ok);
    const auto issue = parse_ras_line(
        "[INFO] NCCL environment: mismatch across 8 ranks in comm 0x1234 for NCCL_DEBUG");
    ASSERT_TRUE(issue.has_value());
    EXPECT_EQ(issue->kind, NcclRasKind::check_issue);
    EXPECT_EQ(issue->text,
              "NCCL environment: mismatch across 8 ranks in comm 0x1234 for NCCL_DEBUG");
    EXPECT_FALSE(
        parse_ras_line("[INFO] p2p: only 1/2 GPU-to-GPU peer accesses passed").has_value());
}

TEST(NcclDiagParser, ReadsThePassingFixture) {
    const auto log =
        test::parse_nccl_log(test::read_fixture("nccl", "handwritten-diag-p2p-pass.log"));
    std::size_t tested = 0;
    std::size_t reports = 0;
    for (const auto& line : log.diagnostics) {
        EXPECT_EQ(line.host, "gpu07");
        tested += line.kind == NcclDiagKind::tested ? 1U : 0U;
        reports += line.kind == NcclDiagKind::report ? 1U : 0U;
    }
    EXPECT_EQ(tested, 12U);  // import and write for 6 edges
    EXPECT_EQ(reports, 1U);  // the header and the completion line are not kept
    EXPECT_TRUE(log.ras.empty());
    EXPECT_EQ(log.connections.size(), 3U);
    EXPECT_EQ(log.counts.skipped, 0U);
}

TEST(NcclDiagParser, AnOpenMpiTagOrNoPrefixKeepsTheLines) {
    const std::string line = "n1:9 NCCL DIAG " + std::string(kWriteMismatch) + "\n";
    const auto tagged = test::parse_nccl_log("[1,0]<stdout>:" + line);
    ASSERT_EQ(tagged.diagnostics.size(), 1U);
    EXPECT_EQ(tagged.diagnostics[0].host, "n1");
    const auto bare = test::parse_nccl_log(
        "Diagnostics P2P read srcRank=0 srcCudaDev=0 srcNvmlDev=0 dstRank=1 dstCudaDev=1 "
        "dstNvmlDev=1 path=NVL handle=DIRECT topoRead=1\n");
    ASSERT_EQ(bare.diagnostics.size(), 1U);
    EXPECT_EQ(bare.diagnostics[0].host, "");
}

TEST(NcclDiagParser, RepeatedLinesCountAndTheBudgetDropsTheRest) {
    std::string text;
    for (int i = 0; i < 400; ++i) {
        text += "h:1 NCCL DIAG [INFO] p2p: setup failed on rank " + std::to_string(i) +
                " result=2\nh:1 NCCL DIAG [INFO] p2p: setup failed on rank 0 result=2\n";
    }
    NcclLogParser parser(NcclParserLimits{.diag_bytes = 4096});
    parser.feed(text);
    parser.end_input();
    const auto log = parser.result();
    EXPECT_LT(log.diagnostics.size(), 400U);
    EXPECT_EQ(log.diagnostics.front().count, 401U);
    EXPECT_GT(log.counts.dropped.diagnostics, 0U);
    std::uint64_t kept = 0;
    for (const auto& line : log.diagnostics) {
        kept += line.count;
    }
    EXPECT_EQ(kept + log.counts.dropped.diagnostics, 800U);
}

TEST(NcclDiagParser, TwoHalvesMergeIntoTheWhole) {
    const std::string text = test::read_fixture("nccl", "handwritten-ras-dead-process.log") +
                             test::read_fixture("nccl", "handwritten-diag-p2p-write-mismatch.log");
    const std::size_t cut = text.find('\n', text.size() / 2) + 1;
    NcclLogParser first;
    NcclLogParser second;
    first.feed(std::string_view(text).substr(0, cut));
    second.feed(std::string_view(text).substr(cut));
    second.end_input();
    first.merge_from(std::move(second));
    EXPECT_EQ(first.result(), test::parse_nccl_log(text));
    EXPECT_FALSE(first.result().ras.empty());
    EXPECT_FALSE(first.result().diagnostics.empty());
}

}  // namespace
}  // namespace peergate::sources::nccl
