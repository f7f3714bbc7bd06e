// SPDX-License-Identifier: Apache-2.0
// The edges of nccl-log's finding rules (policy/nccl/findings.cpp): which graph is the worst,
// a host with one GPU, a rank that meant two GPUs, and the long list of stuck ranks.
#include "nccl_log_support.hpp"
#include "policy/nccl/analysis.hpp"
#include "policy/nccl/findings.hpp"
#include "sources/smi/topo_m_parser.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace peergate::policy::nccl {
namespace {

model::Topology nv12_four() {
    std::ifstream in(std::string(PEERGATE_TEST_FIXTURES) + "/nccl/topo-m-4x-nv12.txt");
    std::stringstream text;
    text << in.rdbuf();
    auto topology = sources::smi::parse_topo_m(text.str());
    EXPECT_TRUE(topology.has_value());
    return *topology;
}

const model::Finding* finding_coded(const NcclAnalysis& analysis, model::FindingCode code) {
    const auto found = std::find_if(analysis.findings.begin(),
                                    analysis.findings.end(),
                                    [&](const model::Finding& f) { return f.code == code; });
    return found == analysis.findings.end() ? nullptr : &*found;
}

std::string init_line(int rank, int nvml_dev, const char* state) {
    return "h:1:1 [0] NCCL INFO comm 0x1 rank " + std::to_string(rank) + " nranks 2 cudaDev " +
           std::to_string(nvml_dev) + " nvmlDev " + std::to_string(nvml_dev) + " busId " +
           std::to_string(nvml_dev + 1) + "b000 commId 0x9 - " + state + "\n";
}

std::string pattern_line(const char* type) {
    return std::string(
               "h:1:1 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1.0/1.0, type ") +
           type + ", sameChannels 1\n";
}

const std::string kP2pLine = "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n";

TEST(NcclGraphRule, TheWorstGraphOfAHostIsNamed) {
    const auto topology = nv12_four();
    const auto analysis = analyze_nccl_log(
        test::parse_nccl_log(init_line(0, 0, "Init COMPLETE") + init_line(1, 1, "Init COMPLETE") +
                             pattern_line("PIX/PIX") + pattern_line("SYS/SYS") +
                             pattern_line("PXB/PXB") + kP2pLine),
        &topology);
    const auto* worse = finding_coded(analysis, kNcclGraphWorse);
    ASSERT_NE(worse, nullptr);
    EXPECT_NE(worse->message.find("type SYS/SYS"), std::string::npos) << worse->message;
}

TEST(NcclGraphRule, AnNvbGraphIsStillNvlink) {
    const auto topology = nv12_four();
    const auto analysis = analyze_nccl_log(
        test::parse_nccl_log(init_line(0, 0, "Init COMPLETE") + init_line(1, 1, "Init COMPLETE") +
                             pattern_line("NVB/NVB") + kP2pLine),
        &topology);
    EXPECT_EQ(finding_coded(analysis, kNcclGraphWorse), nullptr);
}

// One GPU on the host is no pair: "every pair is NVLink-connected" would be empty praise.
TEST(NcclGraphRule, OneGpuOnTheHostIsNoNvlinkClaim) {
    const auto topology = nv12_four();
    const auto analysis = analyze_nccl_log(
        test::parse_nccl_log(init_line(0, 0, "Init COMPLETE") + pattern_line("SYS/SYS") + kP2pLine),
        &topology);
    EXPECT_EQ(finding_coded(analysis, kNcclGraphWorse), nullptr);
}

TEST(NcclInitRule, ALongListOfStuckRanksIsCutAfterSixteen) {
    std::string log;
    for (int rank = 0; rank < 17; ++rank) {
        log += init_line(rank, rank % 8, "Init START");
    }
    const auto analysis = analyze_nccl_log(test::parse_nccl_log(log + kP2pLine), nullptr);
    const auto* stuck = finding_coded(analysis, kNcclInitIncomplete);
    ASSERT_NE(stuck, nullptr);
    EXPECT_NE(stuck->message.find("17 ranks started NCCL init"), std::string::npos);
    EXPECT_NE(stuck->message.find("rank 15 on h, ..."), std::string::npos) << stuck->message;
    EXPECT_EQ(stuck->message.find("rank 16"), std::string::npos) << stuck->message;
}

// A rank number that meant two GPUs (two communicators) names no GPU.
TEST(NcclGdrRule, ARankThatMeantTwoGpusNamesNone) {
    const std::string receive =
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [receive] via "
        "NET/IB/3\n";
    const std::string second_comm =
        "h:1:1 [0] NCCL INFO comm 0x3 rank 1 nranks 2 cudaDev 3 nvmlDev 3 busId 4b000 commId "
        "0xa - Init COMPLETE\n";
    const auto clear =
        analyze_nccl_log(test::parse_nccl_log(init_line(1, 1, "Init COMPLETE") + receive), nullptr);
    ASSERT_NE(finding_coded(clear, kNcclNetWithoutGdr), nullptr);
    EXPECT_EQ(finding_coded(clear, kNcclNetWithoutGdr)->gpus, std::vector<int>{1});
    const auto twice = analyze_nccl_log(
        test::parse_nccl_log(init_line(1, 1, "Init COMPLETE") + second_comm + receive), nullptr);
    ASSERT_NE(finding_coded(twice, kNcclNetWithoutGdr), nullptr);
    EXPECT_TRUE(finding_coded(twice, kNcclNetWithoutGdr)->gpus.empty());
}

// Sockets never do GPUDirect RDMA, so a socket transport's "Disabled" is not the reason.
TEST(NcclGdrRule, ASocketsGdrLineIsNotTheReason) {
    const auto analysis = analyze_nccl_log(
        test::parse_nccl_log(
            "h:1:1 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'\n"
            "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [receive] via NET/IB/3\n"),
        nullptr);
    const auto* without = finding_coded(analysis, kNcclNetWithoutGdr);
    ASSERT_NE(without, nullptr);
    EXPECT_EQ(without->message.find("NCCL said"), std::string::npos) << without->message;
}

// A log past the parser's budget says so, naming what was not kept (policy/nccl/coverage.cpp).
TEST(NcclCoverageRule, RecordsDroppedAtTheCapsAreAWarning) {
    model::NcclLog log = test::parse_nccl_log(kP2pLine);
    EXPECT_EQ(finding_coded(analyze_nccl_log(log, nullptr), kNcclLogCapped), nullptr);
    log.counts.dropped = {.connections = 120, .ranks = 1, .topology = 7};
    const auto analysis = analyze_nccl_log(log, nullptr);
    const auto* capped = finding_coded(analysis, kNcclLogCapped);
    ASSERT_NE(capped, nullptr);
    EXPECT_EQ(capped->severity, model::Severity::warning);
    EXPECT_NE(capped->message.find("120 connection lines, 1 rank line, 7 topology dump lines"),
              std::string::npos)
        << capped->message;
    EXPECT_EQ(capped->message.find("GPU Direct"), std::string::npos) << "only what was dropped";
    EXPECT_NE(capped->remedy.find("one log per job"), std::string::npos);
}

}  // namespace
}  // namespace peergate::policy::nccl
