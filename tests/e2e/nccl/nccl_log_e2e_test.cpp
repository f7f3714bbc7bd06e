// SPDX-License-Identifier: Apache-2.0
// `peergate nccl-log` as a user runs it: the built binary over the fixtures.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct Run {
    int status = -1;
    std::string out;
};

// Runs the binary through the shell (for '<' and '2>'), capturing stdout.
Run run(const std::string& args) {
    Run result;
    const std::string command = std::string(PEERGATE_BINARY) + " " + args + " 2>/dev/null";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return result;
    }
    std::array<char, 4096> buffer{};
    while (std::size_t got = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
        result.out.append(buffer.data(), got);
    }
    const int status = ::pclose(pipe);
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string fixture(const std::string& name) {
    return std::string(PEERGATE_TEST_FIXTURES) + "/nccl/" + name;
}

nlohmann::json json_of(const Run& run) {
    auto doc = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << run.out;
    return doc;
}

TEST(NcclLogE2e, JsonContractOnARealLog) {
    const auto result =
        run("--json nccl-log " + fixture("nccl-2.2x-h20-cumem-gdrdma-nvswitch.log"));
    ASSERT_EQ(result.status, 0);
    const auto doc = json_of(result);
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(result.out.rfind("{\n  \"schema\": \"peergate.nccl_log/v1\"", 0),
              0u);  // schema first
    EXPECT_EQ(doc["schema"], "peergate.nccl_log/v1");
    for (const char* key : {"connections", "transport_counts", "ranks", "settings", "findings"}) {
        EXPECT_TRUE(doc.contains(key)) << key;
    }
    EXPECT_EQ(doc["transport_counts"]["P2P"], 5);
    EXPECT_EQ(doc["transport_counts"]["NET"], 9);
    EXPECT_EQ(doc["settings"]["NCCL_PXN_DISABLE"], "1");
    ASSERT_EQ(doc["connections"].size(), 14u);
    const auto& first = doc["connections"][0];
    for (const char* key :
         {"channel", "src_rank", "src_dev", "dst_rank", "dst_dev", "transport", "detail", "host"}) {
        EXPECT_TRUE(first.contains(key)) << key;
    }
    EXPECT_EQ(first["transport"], "NET");
    EXPECT_EQ(first["detail"], "IB/3/GDRDMA");
    EXPECT_EQ(first["direction"], "receive");
    EXPECT_EQ(first["host"], "H20-GPU-06");
}

TEST(NcclLogE2e, ErrorFindingsExitOne) {
    const auto result = run("nccl-log --json " + fixture("handwritten-nvlink-unused.log"));
    EXPECT_EQ(result.status, 1);
    const auto doc = json_of(result);
    ASSERT_FALSE(doc["findings"].empty());
    EXPECT_EQ(doc["findings"][0]["code"], "nccl_nvlink_unused");
    EXPECT_EQ(doc["findings"][0]["severity"], "error");
}

TEST(NcclLogE2e, SeveralFilesAreMergedAndStdinIsRead) {
    const auto merged = run("--json nccl-log " + fixture("nccl-2.9.9-ec2-p2p-ipc-read.log") +
                            " - < " + fixture("nccl-2.x-shm-socket.log"));
    ASSERT_EQ(merged.status, 0);
    const auto doc = json_of(merged);
    EXPECT_EQ(doc["transport_counts"]["P2P"], 13);
    EXPECT_EQ(doc["transport_counts"]["SHM"], 7);
    EXPECT_EQ(doc["transport_counts"]["NET"], 8);
    EXPECT_EQ(doc["inputs"].size(), 2u);
}

TEST(NcclLogE2e, TopologyFileTurnsShmIntoAFinding) {
    const std::string log = fixture("handwritten-nvlink-unused.log");
    const auto with_nvlink =
        run("--json nccl-log " + log + " --topology " + fixture("topo-m-4x-nv12.txt"));
    EXPECT_EQ(with_nvlink.status, 1);
    EXPECT_EQ(json_of(with_nvlink)["topology_file"], fixture("topo-m-4x-nv12.txt"));
}

TEST(NcclLogE2e, UnreadableInputsExitTwo) {
    EXPECT_EQ(run("nccl-log /nonexistent/nccl.log").status, 2);
    EXPECT_EQ(run("nccl-log " + fixture("handwritten-all-shapes.log") +
                  " --topology /nonexistent/topo.txt")
                  .status,
              2);
    EXPECT_EQ(run("nccl-log " + fixture("handwritten-all-shapes.log") + " --topology " +
                  fixture("handwritten-all-shapes.log"))
                  .status,
              2);
}

TEST(NcclLogE2e, HumanSummaryHasThePairTable) {
    const auto result = run("--no-color nccl-log " + fixture("handwritten-all-shapes.log"));
    EXPECT_EQ(result.status, 0);
    EXPECT_NE(result.out.find("0 -> 1"), std::string::npos);
    EXPECT_NE(result.out.find("P2P 11, SHM 2, NET 4, COLLNET 2, NVLS 1"), std::string::npos);
}

TEST(NcclLogE2e, AFailedDiagnosticsEdgeIsAnErrorBesideTheTransports) {
    const auto result =
        run("--json nccl-log " + fixture("handwritten-diag-p2p-write-mismatch.log"));
    EXPECT_EQ(result.status, 1);
    const auto doc = json_of(result);
    ASSERT_EQ(doc["diagnostics"].size(), 12u);
    std::size_t failed = 0;
    for (const auto& edge : doc["diagnostics"]) {
        for (const char* key : {"src_rank", "dst_rank", "host", "result", "text"}) {
            EXPECT_TRUE(edge.contains(key)) << key;
        }
        if (edge["result"] == "fail") {
            ++failed;
            EXPECT_EQ(edge["src_rank"], 2);
            EXPECT_EQ(edge["dst_rank"], 3);
            EXPECT_EQ(edge["check"], "write mismatch");
        }
    }
    EXPECT_EQ(failed, 1u);
    ASSERT_FALSE(doc["findings"].empty());
    EXPECT_EQ(doc["findings"][0]["code"], "nccl_diag_edge_failed");
    EXPECT_EQ(doc["findings"][0]["severity"], "error");
    EXPECT_TRUE(doc["ras"].empty());
    const auto text =
        run("--no-color nccl-log " + fixture("handwritten-diag-p2p-write-mismatch.log"));
    EXPECT_NE(text.out.find("NCCL's P2P diagnostics"), std::string::npos);
    EXPECT_NE(text.out.find("2 -> 3"), std::string::npos);
}

TEST(NcclLogE2e, RasLinesAreListedAndWarnedOn) {
    const auto doc = json_of(run("--json nccl-log " + fixture("handwritten-ras-dead-process.log")));
    ASSERT_EQ(doc["ras"].size(), 10u);
    EXPECT_EQ(doc["ras"][4]["kind"], "dead");
    EXPECT_EQ(doc["ras"][4]["node"], "10.20.0.12<28028>");
    bool dead_warning = false;
    for (const auto& finding : doc["findings"]) {
        dead_warning = dead_warning || (finding["code"] == "nccl_ras_process_dead" &&
                                        finding["severity"] == "warning");
    }
    EXPECT_TRUE(dead_warning);
}

}  // namespace
