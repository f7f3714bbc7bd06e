// SPDX-License-Identifier: Apache-2.0
// The bench result reader shared by place --bandwidth and doctor --bandwidth.
#include "sources/documents/bench_file.hpp"

#include <gtest/gtest.h>

namespace peergate::sources::documents {
namespace {

TEST(BenchFile, ReadsEachPairsP2pAndStagedRates) {
    const auto samples = parse_bench_file(R"({"schema": "peergate.bench/v1", "pairs": [
        {"src": 0, "dst": 1, "p2p_gbps": 5.0, "staged_gbps": 12.0},
        {"src": 1, "dst": 0, "p2p_gbps": 5.5, "staged_gbps": null},
        {"src": 0, "dst": 2, "p2p_gbps": null}]})");
    ASSERT_TRUE(samples.has_value()) << samples.error().message;
    ASSERT_EQ(samples->samples.size(), 2U);  // the unmeasured pair is skipped
    EXPECT_EQ(samples->samples[0].gbps, 5.0);
    EXPECT_EQ(samples->samples[0].staged_gbps, std::optional<double>(12.0));
    EXPECT_FALSE(samples->samples[1].staged_gbps.has_value());
    EXPECT_TRUE(samples->gpu_uuids.empty());  // written before bench recorded them
}

// Both directions at once, both counted: what export's bidirectional family shows.
TEST(BenchFile, ReadsEachPairsBidirectionalRate) {
    const auto samples = parse_bench_file(R"({"schema": "peergate.bench/v1", "pairs": [
        {"src": 0, "dst": 1, "p2p_gbps": 5.0, "bidirectional_gbps": 9.5},
        {"src": 1, "dst": 0, "p2p_gbps": 5.5, "bidirectional_gbps": null},
        {"src": 0, "dst": 2, "p2p_gbps": 5.5}]})");
    ASSERT_TRUE(samples.has_value()) << samples.error().message;
    ASSERT_EQ(samples->samples.size(), 3U);
    EXPECT_EQ(samples->samples[0].bidirectional_gbps, std::optional<double>(9.5));
    EXPECT_FALSE(samples->samples[1].bidirectional_gbps.has_value());
    EXPECT_FALSE(samples->samples[2].bidirectional_gbps.has_value());
    const auto bad = parse_bench_file(R"({"schema": "peergate.bench/v1", "pairs": [
        {"src": 0, "dst": 1, "p2p_gbps": 5.0, "bidirectional_gbps": "x"}]})");
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("bidirectional_gbps"), std::string::npos);
}

TEST(BenchFile, WhatIsNotABenchResultIsAnErrorSayingWhy) {
    EXPECT_NE(parse_bench_file("[]").error().message.find("not a JSON object"), std::string::npos);
    EXPECT_NE(parse_bench_file(R"({"schema": "peergate.probe/v1"})")
                  .error()
                  .message.find("peergate.bench/v1"),
              std::string::npos);
    EXPECT_NE(parse_bench_file(R"({"schema": "peergate.bench/v1", "pairs": [{"src": 0}]})")
                  .error()
                  .message.find("\"src\" and \"dst\""),
              std::string::npos);
}

// What bench writes on a one-GPU node: no pair, and still a result (nothing to join).
TEST(BenchFile, AResultWithoutPairsReadsAsNoSample) {
    const auto parsed = parse_bench_file(
        R"({"schema": "peergate.bench/v1", "result": "pass", "gpus": [0], "pairs": [], "gpu_uuids": ["GPU-a"]})");
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_TRUE(parsed->samples.empty());
    EXPECT_EQ(parsed->gpu_uuids.size(), 1U);
}

// A sample the placement would weigh with must name two GPUs and carry a rate it can compare:
// a pair from a GPU to itself, or a negative index or rate, would weigh a group by nonsense.
TEST(BenchFile, AnEntryThatCannotBeWeighedIsAnErrorSayingWhy) {
    const auto error_for = [](const std::string& entry) {
        const auto parsed =
            parse_bench_file(R"({"schema": "peergate.bench/v1", "pairs": [)" + entry + "]}");
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

std::vector<model::Gpu> four_gpus() {
    std::vector<model::Gpu> gpus;
    for (int i = 0; i < 4; ++i) {
        gpus.push_back(model::Gpu{.index = i, .uuid = "GPU-here-" + std::to_string(i)});
    }
    return gpus;
}

BenchFile measured_on(std::vector<std::pair<int, std::string>> uuids, int src, int dst) {
    return BenchFile{.samples = {{.src = src, .dst = dst, .gbps = 20.0}},
                     .gpu_uuids = std::move(uuids),
                     .host = "node7"};
}

// A shared file system makes it easy to hand place or the doctor another node's result.
TEST(BenchFile, AResultFromOtherGpusIsRefusedNamingTheGpu) {
    const auto other = check_bench_matches(
        measured_on({{0, "GPU-here-0"}, {1, "GPU-there-1"}}, 0, 1), "b.json", four_gpus());
    ASSERT_FALSE(other.has_value());
    EXPECT_EQ(other.error().message,
              "b.json was measured on other GPUs (host node7): GPU 1 there is GPU-there-1, here "
              "it is GPU-here-1; measure this machine with peergate bench --json");

    const auto absent = check_bench_matches(measured_on({}, 0, 7), "b.json", four_gpus());
    ASSERT_FALSE(absent.has_value());
    EXPECT_NE(absent.error().message.find("GPU 7, which this machine does not have"),
              std::string::npos);

    EXPECT_TRUE(check_bench_matches(measured_on({{0, "GPU-here-0"}, {1, "GPU-here-1"}}, 0, 1),
                                    "b.json",
                                    four_gpus())
                    .has_value());
    EXPECT_TRUE(check_bench_matches(measured_on({}, 2, 3), "b.json", four_gpus()).has_value());
}

TEST(BenchFile, ReadsTheGpusItWasMeasuredOn) {
    const auto file = parse_bench_file(R"({"schema": "peergate.bench/v1", "gpus": [0, 1, 2],
        "gpu_uuids": ["GPU-a", null, "GPU-c"], "host": "node7",
        "pairs": [{"src": 0, "dst": 1, "p2p_gbps": 5.0}]})");
    ASSERT_TRUE(file.has_value()) << file.error().message;
    EXPECT_EQ(file->gpu_uuids,
              (std::vector<std::pair<int, std::string>>{{0, "GPU-a"}, {2, "GPU-c"}}));
    EXPECT_EQ(file->host, "node7");
}

}  // namespace
}  // namespace peergate::sources::documents
