// SPDX-License-Identifier: Apache-2.0
// peergate doctor and NVLinks that are down, end to end: the simulated NVML lists two of
// GPU 3's links inactive (tests/fixtures/machines/nvlink-down-8x.json), the doctor walks them
// through the real NVML code and names the GPU.
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string nvlink_down_machine() {
    return std::string(PEERGATE_TEST_FIXTURES) + "/machines/nvlink-down-8x.json";
}

TEST(DoctorNvlink, TwoLinksDownOnAnNvswitchBaseboardAreAProblemNamingTheGpu) {
    const auto run = run_peergate({"--simulate", nvlink_down_machine(), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "problems");
    const auto* down = find_finding(doc, "nvlink_down");
    ASSERT_NE(down, nullptr) << doc.dump(2);
    EXPECT_EQ((*down)["severity"], "error");
    EXPECT_EQ((*down)["gpus"].dump(), "[3]");
    EXPECT_NE((*down)["message"].get<std::string>().find("down: links 4, 11"), std::string::npos);
    const auto& links = doc["layers"]["peer_access"]["nvlinks"];
    ASSERT_EQ(links.size(), 8U) << links.dump();
    EXPECT_EQ(links[3]["up"], 16);
    EXPECT_EQ(links[3]["down"].dump(), "[4,11]");
    EXPECT_EQ(links[3]["to_switch"], 16);
    EXPECT_EQ(links[0]["up"], 18);
}

TEST(DoctorNvlink, AGroupWithoutTheDegradedGpuIsHealthy) {
    const auto run =
        run_peergate({"--simulate", nvlink_down_machine(), "doctor", "--json", "--gpus", "0,1"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "healthy");
    EXPECT_EQ(find_finding(doc, "nvlink_down"), nullptr) << doc.dump(2);
}

TEST(DoctorNvlink, TheTextReportSaysWhatToRun) {
    const auto run = run_peergate({"--simulate", nvlink_down_machine(), "doctor", "--no-color"});
    EXPECT_EQ(run.process.exit_code, 1);
    EXPECT_NE(run.process.out.find("[error] nvlink_down: GPU 3"), std::string::npos)
        << run.process.out;
    EXPECT_NE(run.process.out.find("nvidia-smi nvlink -e -i 3"), std::string::npos);
}

}  // namespace
}  // namespace peergate::test
