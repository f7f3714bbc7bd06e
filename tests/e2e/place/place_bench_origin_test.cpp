// SPDX-License-Identifier: Apache-2.0
// A bench result records the GPUs it was measured on, and place and the doctor refuse one
// from other GPUs: on a cluster with a shared file system another node's file is one typo away.
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace peergate::test {
namespace {

// `peergate --simulate MACHINE bench --json`, saved under the build tree.
std::string bench_file_of(const std::string& machine) {
    const auto run = run_peergate(
        {"--simulate", machine, "bench", "--json", "--size-mib", "1", "--gpus", "0,1"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const std::string path = std::string(PEERGATE_BUILD_DIR) + "/bench-origin-" + machine + ".json";
    std::ofstream(path) << run.process.out;
    return path;
}

TEST(PlaceBenchOrigin, BenchRecordsTheGpusItMeasured) {
    const auto run = run_peergate(
        {"--simulate", "bridged-a100-4x", "bench", "--json", "--size-mib", "1", "--gpus", "0,1"});
    const auto doc = nlohmann::json::parse(run.process.out);
    ASSERT_EQ(doc["gpu_uuids"].size(), 2U) << doc.dump(2);
    EXPECT_TRUE(doc["gpu_uuids"][0].get<std::string>().starts_with("GPU-"));
    EXPECT_TRUE(doc["host"].is_string());
}

TEST(PlaceBenchOrigin, AResultFromOtherGpusIsRefused) {
    const std::string other = bench_file_of("hgx-b200-8x");
    for (const char* command : {"place", "doctor"}) {
        SCOPED_TRACE(command);
        std::vector<std::string> args{"--simulate", "bridged-a100-4x", command};
        if (std::string(command) == "place") {
            args.insert(args.end(), {"--size", "2"});
        }
        args.insert(args.end(), {"--bandwidth", other});
        const auto run = run_peergate(args);
        EXPECT_EQ(run.process.exit_code, 2);
        EXPECT_NE(run.process.err.find("was measured on other GPUs"), std::string::npos)
            << run.process.err;
    }
}

TEST(PlaceBenchOrigin, ThisMachinesOwnResultIsTaken) {
    const std::string own = bench_file_of("bridged-a100-4x");
    const auto run = run_peergate({"--simulate",
                                   "bridged-a100-4x",
                                   "place",
                                   "--size",
                                   "2",
                                   "--gpus",
                                   "0,1",
                                   "--bandwidth",
                                   own});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(run.process.out.find("group 1: GPUs 0,1"), std::string::npos) << run.process.out;
}

}  // namespace
}  // namespace peergate::test
