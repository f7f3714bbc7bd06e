// SPDX-License-Identifier: Apache-2.0
// NVLink5 error counters end to end (tests/fixtures/machines/nvlink5-errors-8x.json): on
// Blackwell NVML keeps a link's errors as field values (link recovery events, effective
// errors), not as the DL counters of nvmlDeviceGetNvLinkErrorCounter. The doctor reads them
// through the real NVML code, judges a retrain as it does on older GPUs, and sees them grow
// under the probe; export and gather carry them.
#include "snapshot/machine_file.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string nvlink5_machine() {
    return fixture_machine("nvlink5-errors-8x");
}

TEST(DoctorNvlink5Errors, ARetrainWarnsAndEffectiveErrorsInform) {
    const auto run = run_peergate({"--simulate", nvlink5_machine(), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    const auto* gpu2 = find_finding(doc, "nvlink_errors", "[2]");
    ASSERT_NE(gpu2, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*gpu2)["severity"], "info");
    EXPECT_NE((*gpu2)["message"].get<std::string>().find("link 5: 12 effective errors."),
              std::string::npos)
        << (*gpu2)["message"];
    const auto* gpu5 = find_finding(doc, "nvlink_errors", "[5]");
    ASSERT_NE(gpu5, nullptr);
    EXPECT_EQ((*gpu5)["severity"], "warning");
    EXPECT_NE((*gpu5)["message"].get<std::string>().find(
                  "link 9: 2 link recovery events, 3 effective errors"),
              std::string::npos)
        << (*gpu5)["message"];
    const auto& errors = doc["layers"]["peer_access"]["nvlinks"][5]["errors"];
    EXPECT_EQ(errors.dump(),
              R"([{"link":9,"replay":null,"recovery":null,"crc_flit":null,"crc_data":null,)"
              R"("link_recovery_events":2,"effective_errors":3}])");
}

// 25 effective errors gained in the few milliseconds the probe moved data is far above 100 a
// second: an error, as the same rate of replays is on the DL counters (issue 52).
TEST(DoctorNvlink5Errors, TheProbeShowsEffectiveErrorsGrowingUnderLoad) {
    const auto run = run_peergate(
        {"--simulate", nvlink5_machine(), "doctor", "--probe", "--gpus", "5,6", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "problems");
    const auto* grown = find_finding(doc, "nvlink_errors_under_load", "[6]");
    ASSERT_NE(grown, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*grown)["severity"], "error");
    const auto message = (*grown)["message"].get<std::string>();
    EXPECT_NE(message.find("s of transfers: link 3: +25 effective errors."), std::string::npos)
        << message;
    EXPECT_NE(message.find("or 100 a second"), std::string::npos) << message;
    EXPECT_EQ(
        doc["layers"]["peer_access"]["nvlinks"][6]["errors_after_probe"][0]["effective_errors"],
        25);
}

TEST(DoctorNvlink5Errors, PrometheusAndGatherCarryThem) {
    const auto exported = run_peergate({"--simulate", nvlink5_machine(), "export", "prometheus"});
    ASSERT_EQ(exported.process.exit_code, 0) << exported.process.err;
    EXPECT_NE(exported.process.out.find("peergate_gpu_nvlink_errors_total{gpu=\"5\",counter="
                                        "\"link_recovery_events\"} 2\n"),
              std::string::npos)
        << exported.process.out;
    const test::ScratchDir scratch;
    const std::string out = scratch.path() + "/gathered.json";
    const auto gathered =
        run_peergate({"--simulate", nvlink5_machine(), "gather", "--output", out});
    ASSERT_EQ(gathered.process.exit_code, 0) << gathered.process.err;
    const auto recorded = snapshot::load_machine(out);
    ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
    ASSERT_EQ(recorded->gpus[2].nvlink_errors.size(), 1U);
    const auto& counts = recorded->gpus[2].nvlink_errors[0].counts;
    EXPECT_EQ(counts[model::NvlinkCounter::effective_errors], 12U);
    EXPECT_FALSE(counts[model::NvlinkCounter::replay].has_value());
    EXPECT_EQ(recorded->gpus[2].nvlink_counters, model::NvlinkCounterSet::nvlink5);
    EXPECT_TRUE(recorded->gpus[6].nvlink_errors.empty());  // clean at the read: left out
    const auto replay = run_peergate({"--simulate", out, "export", "prometheus"});
    EXPECT_NE(replay.process.out.find(
                  "peergate_gpu_nvlink_errors_total{gpu=\"0\",counter=\"effective_errors\"} 0\n"),
              std::string::npos)
        << replay.process.out;
    EXPECT_EQ(replay.process.out.find("counter=\"replay\""), std::string::npos);
}

}  // namespace
}  // namespace peergate::test
