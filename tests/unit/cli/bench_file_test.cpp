// SPDX-License-Identifier: Apache-2.0
// The bench result reader shared by place --bandwidth and doctor --bandwidth.
#include "cli/bench_file.hpp"

#include <gtest/gtest.h>

namespace peergate::cli {
namespace {

TEST(BenchFile, ReadsEachPairsP2pAndStagedRates) {
    const auto samples = parse_bench_samples(R"({"schema": "peergate.bench/v1", "pairs": [
        {"src": 0, "dst": 1, "p2p_gbps": 5.0, "staged_gbps": 12.0},
        {"src": 1, "dst": 0, "p2p_gbps": 5.5, "staged_gbps": null},
        {"src": 0, "dst": 2, "p2p_gbps": null}]})");
    ASSERT_TRUE(samples.has_value()) << samples.error().message;
    ASSERT_EQ(samples->size(), 2U);  // the unmeasured pair is skipped
    EXPECT_EQ((*samples)[0].gbps, 5.0);
    EXPECT_EQ((*samples)[0].staged_gbps, std::optional<double>(12.0));
    EXPECT_FALSE((*samples)[1].staged_gbps.has_value());
}

TEST(BenchFile, WhatIsNotABenchResultIsAnErrorSayingWhy) {
    EXPECT_NE(parse_bench_samples("[]").error().message.find("not a JSON object"),
              std::string::npos);
    EXPECT_NE(parse_bench_samples(R"({"schema": "peergate.probe/v1"})")
                  .error()
                  .message.find("peergate.bench/v1"),
              std::string::npos);
    EXPECT_NE(parse_bench_samples(R"({"schema": "peergate.bench/v1", "pairs": [{"src": 0}]})")
                  .error()
                  .message.find("\"src\" and \"dst\""),
              std::string::npos);
    EXPECT_NE(parse_bench_samples(R"({"schema": "peergate.bench/v1", "pairs": []})")
                  .error()
                  .message.find("no measured pair"),
              std::string::npos);
}

// A sample the placement would weigh with must name two GPUs and carry a rate it can compare:
// a pair from a GPU to itself, or a negative index or rate, would weigh a group by nonsense.
TEST(BenchFile, AnEntryThatCannotBeWeighedIsAnErrorSayingWhy) {
    const auto error_for = [](const std::string& entry) {
        const auto parsed =
            parse_bench_samples(R"({"schema": "peergate.bench/v1", "pairs": [)" + entry + "]}");
        return parsed ? std::string("accepted") : parsed.error().message;
    };
    // clang-format off
    EXPECT_NE(error_for(R"({"src": 1, "dst": 1, "p2p_gbps": 5})").find("two different GPU"), std::string::npos);
    EXPECT_NE(error_for(R"({"src": -1, "dst": 1, "p2p_gbps": 5})").find("integers from 0"), std::string::npos);
    EXPECT_NE(error_for(R"({"src": 4294967296, "dst": 1, "p2p_gbps": 5})").find("integers from 0"), std::string::npos);
    EXPECT_NE(error_for(R"({"src": 0, "dst": 1, "p2p_gbps": -5})").find("finite number from 0"), std::string::npos);
    EXPECT_NE(error_for(R"({"src": 0, "dst": 1, "p2p_gbps": 1e999})"), "accepted");  // the JSON reader refuses it
    EXPECT_NE(error_for(R"({"src": 0, "dst": 1, "p2p_gbps": "fast"})").find("finite number from 0"), std::string::npos);
    EXPECT_NE(error_for(R"({"src": 0, "dst": 1, "p2p_gbps": 5, "staged_gbps": -1})").find("staged_gbps"), std::string::npos);
    EXPECT_EQ(error_for(R"({"src": 0, "dst": 1, "p2p_gbps": 0})"), "accepted");
    // clang-format on
}

}  // namespace
}  // namespace peergate::cli
