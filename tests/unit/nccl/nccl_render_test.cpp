// SPDX-License-Identifier: Apache-2.0
#include "nccl_log_support.hpp"
#include "policy/nccl/analysis.hpp"
#include "report/nccl/log_json.hpp"
#include "report/nccl/log_text.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace peergate::report::nccl {
namespace {

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(PEERGATE_TEST_FIXTURES) + "/nccl/" + name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(NcclLogRender, FastJsonTextEqualsTheDocument) {
    for (const char* name : {"handwritten-all-shapes.log",
                             "nccl-2.9.9-ec2-p2p-ipc-read.log",
                             "handwritten-nvlink-unused.log",
                             "nccl-2.21.5-vllm-topology-nvswitch.log"}) {
        SCOPED_TRACE(name);
        const auto log = test::parse_nccl_log(fixture(name));
        const auto analysis = policy::nccl::analyze_nccl_log(log, nullptr);
        const NcclLogReport report{{name}, "", &log, &analysis};
        const std::string text = nccl_log_to_json_text(report);
        EXPECT_EQ(text.rfind("{\n  \"schema\": \"peergate.nccl_log/v1\"", 0), 0u);
        const auto parsed = nlohmann::ordered_json::parse(text, nullptr, false);
        ASSERT_FALSE(parsed.is_discarded());
        EXPECT_EQ(parsed, nccl_log_to_json(report));
    }
}

TEST(NcclLogRender, BytesThatAreNotUtf8AreReplacedNotThrown) {
    const auto log = test::parse_nccl_log(
        "h\xff\xfe:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\"\x01\xc3\n"
        "h:1:2 [0] NCCL INFO NCCL_X set by environment to \xff\n");
    ASSERT_EQ(log.connections.size(), 1u);
    const auto analysis = policy::nccl::analyze_nccl_log(log, nullptr);
    const NcclLogReport report{{"-"}, "", &log, &analysis};
    const std::string text = nccl_log_to_json_text(report);
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << text;
    EXPECT_EQ(parsed["connections"][0]["transport"], "P2P");
    EXPECT_FALSE(nccl_log_to_text(report, false, 10).empty());
}

TEST(NcclLogRender, ALogWithoutConnectionsOrPairsIsTheDocumentToo) {
    const auto log = test::parse_nccl_log("h:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n");
    const auto analysis = policy::nccl::analyze_nccl_log(log, nullptr);
    const NcclLogReport report{{"-"}, "", &log, &analysis};
    const auto parsed = nlohmann::ordered_json::parse(nccl_log_to_json_text(report));
    EXPECT_EQ(parsed, nccl_log_to_json(report));
    EXPECT_TRUE(parsed["pairs"].is_array());
}

TEST(NcclLogRender, DroppedRecordsAreInTheLinesObject) {
    auto log =
        test::parse_nccl_log("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n");
    log.counts.dropped = {
        .connections = 3, .ranks = 0, .choices = 2, .gdr = 1, .topology = 4, .diagnostics = 5};
    const auto analysis = policy::nccl::analyze_nccl_log(log, nullptr);
    const NcclLogReport report{{"-"}, "", &log, &analysis};
    const auto parsed = nlohmann::json::parse(nccl_log_to_json_text(report));
    EXPECT_EQ(parsed["lines"]["dropped"],
              nlohmann::json::parse(
                  R"({"connections": 3, "ranks": 0, "choices": 2, "gdr": 1, "topology": 4,
                      "diagnostics": 5})"));
    EXPECT_EQ(parsed["lines"]["skipped"], 0);
    EXPECT_NE(nccl_log_to_text(report, false, 10).find("nccl_log_capped"), std::string::npos);
}

}  // namespace
}  // namespace peergate::report::nccl
