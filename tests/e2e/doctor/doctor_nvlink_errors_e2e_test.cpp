// SPDX-License-Identifier: Apache-2.0
// NVLink error counters end to end (tests/fixtures/machines/nvlink-errors-8x.json): the
// doctor reads them through the real NVML code, names the links that count errors, with
// --probe reads them again after moving data and names what the load added; export writes
// them for Prometheus, and gather records them so that a replay reads the same.
#include "snapshot/machine_file.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string errors_machine() {
    return std::string(PEERGATE_TEST_FIXTURES) + "/machines/nvlink-errors-8x.json";
}

// Graded by the counts (issue 52): GPU 2's 1,200 replays and 310 CRC errors on one link are
// an error, GPU 5's 18 replays and 2 recoveries a warning, and the error fails the node.
TEST(DoctorNvlinkErrors, NamesTheLinksThatCountErrorsGradedByTheCounts) {
    const auto run = run_peergate({"--simulate", errors_machine(), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "problems");
    int seen = 0;
    for (const auto& finding : doc["findings"]) {
        if (finding["code"] != "nvlink_errors") {
            continue;
        }
        ++seen;
        const auto message = finding["message"].get<std::string>();
        if (finding["gpus"].dump() == "[2]") {
            EXPECT_EQ(finding["severity"], "error");
            EXPECT_NE(message.find("link 5: 1200 replays, 310 CRC flit errors"), std::string::npos)
                << message;
        } else {
            EXPECT_EQ(finding["gpus"].dump(), "[5]");
            EXPECT_EQ(finding["severity"], "warning");
            EXPECT_NE(message.find("link 9: 18 replays, 2 recoveries"), std::string::npos)
                << message;
        }
    }
    EXPECT_EQ(seen, 2) << doc["findings"].dump(2);
    const auto& links = doc["layers"]["peer_access"]["nvlinks"];
    // A link NVML answers no counter for is listed, every count unknown.
    EXPECT_EQ(links[1]["errors"].dump(),
              R"([{"link":7,"replay":null,"recovery":null,"crc_flit":null,"crc_data":null,)"
              R"("link_recovery_events":null,"effective_errors":null}])");
    EXPECT_EQ(links[0]["errors"].dump(), "[]");
    EXPECT_FALSE(links[0].contains("errors_after_probe"));  // no probe, no second read
}

// GPU 6's link gains 40 replays and 160 CRC flit errors under the probe's load: an error,
// which fails the node; GPU 5's standing counts alone would not (a warning).
TEST(DoctorNvlinkErrors, TheProbeShowsALinkThatDegradesUnderLoad) {
    const auto run = run_peergate(
        {"--simulate", errors_machine(), "doctor", "--probe", "--gpus", "5,6", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "problems");
    const auto* grown = find_finding(doc, "nvlink_errors_under_load");
    ASSERT_NE(grown, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*grown)["severity"], "error");
    EXPECT_EQ((*grown)["gpus"].dump(), "[6]");
    EXPECT_NE((*grown)["message"].get<std::string>().find("+40 replays, +160 CRC flit errors"),
              std::string::npos)
        << (*grown)["message"];
    const auto* standing = find_finding(doc, "nvlink_errors");
    ASSERT_NE(standing, nullptr);
    EXPECT_EQ((*standing)["severity"], "warning");
    const auto& gpu6 = doc["layers"]["peer_access"]["nvlinks"][6];
    EXPECT_EQ(gpu6["errors"].dump(), "[]");
    EXPECT_EQ(gpu6["errors_after_probe"][0]["replay"], 40);
    // GPU 2 is not examined: its standing counts are not this selection's business.
    for (const auto& finding : doc["findings"]) {
        EXPECT_NE(finding["gpus"].dump(), "[2]") << finding.dump();
    }
}

TEST(DoctorNvlinkErrors, PrometheusGetsEachGpusCountsByCounter) {
    const auto run = run_peergate({"--simulate", errors_machine(), "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto& out = run.process.out;
    EXPECT_NE(out.find("# TYPE peergate_gpu_nvlink_errors_total counter\n"), std::string::npos);
    EXPECT_NE(out.find("peergate_gpu_nvlink_errors_total{gpu=\"2\",counter=\"replay\"} 1200\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("peergate_gpu_nvlink_errors_total{gpu=\"5\",counter=\"recovery\"} 2\n"),
              std::string::npos);
    EXPECT_NE(out.find("peergate_gpu_nvlink_errors_total{gpu=\"0\",counter=\"crc_data\"} 0\n"),
              std::string::npos);
}

TEST(DoctorNvlinkErrors, GatherRecordsThemForTheReplay) {
    const test::ScratchDir scratch;
    const std::string out = scratch.path() + "/gathered.json";
    const auto run = run_peergate({"--simulate", errors_machine(), "gather", "--output", out});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    ASSERT_EQ(recorded->gpus[2].nvlink_errors.size(), 1U);
    EXPECT_EQ(recorded->gpus[2].nvlink_errors[0].link, 5);
    EXPECT_EQ(recorded->gpus[2].nvlink_errors[0].counts[model::NvlinkCounter::crc_flit], 310U);
    EXPECT_TRUE(recorded->gpus[0].nvlink_errors.empty());   // counts nothing: left out
    ASSERT_EQ(recorded->gpus[1].nvlink_errors.size(), 1U);  // no counter answered
    EXPECT_FALSE(recorded->gpus[1].nvlink_errors[0].counts[model::NvlinkCounter::replay]);
    EXPECT_FALSE(recorded->gpus[1].nvlink_errors[0].counts[model::NvlinkCounter::crc_data]);
    const auto replay = run_peergate({"--simulate", out, "doctor", "--json"});
    const auto doc = stdout_json(replay);
    const auto* gpu5 = find_finding(doc, "nvlink_errors");
    ASSERT_NE(gpu5, nullptr);
    EXPECT_EQ(doc["layers"]["peer_access"]["nvlinks"][5]["errors"][0]["recovery"], 2);
}

}  // namespace
}  // namespace peergate::test
