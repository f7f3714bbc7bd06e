// SPDX-License-Identifier: Apache-2.0
// The command line itself: --version, usage errors, and doctor on a host with no driver.
#include "peergate/version.hpp"
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

namespace peergate {
namespace {

using Json = nlohmann::ordered_json;

TEST(Cli, VersionPrintsTheVersionAndExitsZero) {
    const auto run = test::run_peergate({"--version"});
    EXPECT_EQ(run.process.exit_code, 0);
    EXPECT_NE(run.process.out.find(std::string("peergate ") + kVersion), std::string::npos)
        << run.process.out;
}

TEST(Cli, UsageErrorsExitTwo) {
    const std::vector<std::vector<std::string>> cases{
        {},                                      // no command
        {"frobnicate"},                          // unknown command
        {"topo", "--frobnicate"},                // unknown flag
        {"--frobnicate", "topo"},                // unknown global flag
        {"topo", "--source", "carrier-pigeon"},  // value outside the set
        {"topo", "--from"},                      // missing value
    };
    for (const auto& args : cases) {
        std::string joined;
        for (const auto& arg : args) {
            joined += arg + " ";
        }
        SCOPED_TRACE(joined);
        const auto run = test::run_peergate(args);
        EXPECT_EQ(run.process.exit_code, 2) << run.process.out << run.process.err;
        EXPECT_FALSE(run.process.err.empty()) << "a usage error says what was wrong";
    }
}

// A number out of range names the value and the range (CLI11's own checks print the largest
// double, 309 digits, as their upper bound).
TEST(Cli, ANumberOutOfRangeSaysWhichRange) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"place", "--size", "0"}, "--size: 0 is not a whole number from 1 to 4096"},
        {{"fleet", "run", "--nodes", "-2"}, "--nodes: -2 is not a whole number from 1 to 1000000"},
        {{"export", "nfd", "--expiry-hours", "x"},
         "--expiry-hours: x is not a whole number from 0 to 87600"},
    };
    for (const auto& [args, message] : cases) {
        SCOPED_TRACE(message);
        const auto run = test::run_peergate(args);
        EXPECT_EQ(run.process.exit_code, 2);
        EXPECT_TRUE(run.process.err.starts_with(message)) << run.process.err;
        EXPECT_LT(run.process.err.size(), 200U) << run.process.err;
    }
}

TEST(Cli, HelpExitsZero) {
    const auto run = test::run_peergate({"topo", "--help"});
    EXPECT_EQ(run.process.exit_code, 0);
    EXPECT_NE(run.process.out.find("--from"), std::string::npos);
}

TEST(Cli, DashJIsJson) {
    const std::vector<std::vector<std::string>> runs = {
        {"--simulate", "bridged-a100-4x", "-j", "topo"},
        {"--simulate", "bridged-a100-4x", "topo", "-j"}};
    for (const auto& args : runs) {
        const auto run = test::run_peergate(args);
        EXPECT_EQ(run.process.exit_code, 0);
        EXPECT_EQ(test::stdout_json(run)["schema"], "peergate.topology/v1");
    }
}

TEST(Doctor, HostWithoutDriverIsInconclusiveAndSaysWhereItLooked) {
    const auto run = test::run_peergate({"doctor",
                                         "--json",
                                         "--nvml-lib",
                                         "/nonexistent/libnvidia-ml.so.1",
                                         "--cuda-lib",
                                         "/nonexistent/libcuda.so.1",
                                         "--nvidia-smi",
                                         "/nonexistent/nvidia-smi"});
    EXPECT_EQ(run.process.exit_code, 2) << run.process.err;
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["schema"], "peergate.doctor/v1");
    EXPECT_EQ(doc["verdict"], "inconclusive");
    ASSERT_TRUE(doc["findings"].is_array());
    ASSERT_FALSE(doc["findings"].empty());
    const Json& finding = doc["findings"][0];
    EXPECT_EQ(finding["code"], "no_nvidia_driver");
    const std::string message = finding["message"];
    for (const char* looked : {"/nonexistent/libnvidia-ml.so.1",
                               "/nonexistent/libcuda.so.1",
                               "/nonexistent/nvidia-smi"}) {
        EXPECT_NE(message.find(looked), std::string::npos) << looked << " in: " << message;
    }
    EXPECT_NE(message.find("peer-to-peer stays off"), std::string::npos) << message;
}

TEST(Doctor, TextOnAHostWithoutDriverSaysSoPlainly) {
    const auto run = test::run_peergate({"doctor",
                                         "--nvml-lib",
                                         "/nonexistent/libnvidia-ml.so.1",
                                         "--cuda-lib",
                                         "/nonexistent/libcuda.so.1",
                                         "--nvidia-smi",
                                         "/nonexistent/nvidia-smi"});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_NE(run.process.out.find("No NVIDIA driver found"), std::string::npos) << run.process.out;
    EXPECT_NE(run.process.out.find("Verdict: inconclusive"), std::string::npos) << run.process.out;
}

}  // namespace
}  // namespace peergate
