// SPDX-License-Identifier: Apache-2.0
// peergate watch on simulated machines through the real dlopen path (docs/watch.md): a job
// on NVLink, one on PCIe only, an idle one, a driver without the counters, counters that
// wrap, a GPU that moved nothing, NVLink errors that grew, a driver that stops answering,
// --attach, the command's exit status and signals, usage errors.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace peergate::test {
namespace {

PeergateRun watch(const std::string& machine, std::vector<std::string> rest) {
    std::vector<std::string> args{
        "--simulate", fixture_machine(machine), "watch", "--interval", "50"};
    args.insert(args.end(), rest.begin(), rest.end());
    return run_peergate(args);
}

nlohmann::ordered_json watch_json(const std::string& machine, const std::string& seconds = "0.4") {
    const auto run = watch(machine, {"--json", "--", "sleep", seconds});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    return stdout_json(run);
}

std::string verdict_of(const nlohmann::ordered_json& doc, std::size_t k = 0) {
    return doc["verdicts"].size() > k ? doc["verdicts"][k]["verdict"].get<std::string>() : "none";
}

TEST(WatchE2e, AJobOnNvlinkIsNvlinkWithItsBytesPerPair) {
    const auto doc = watch_json("watch-nvlink-2x");
    std::vector<std::string> keys;
    for (const auto& [key, value] : doc.items()) {
        keys.push_back(key);
    }
    EXPECT_EQ(keys,
              (std::vector<std::string>{"schema",
                                        "command",
                                        "exit_status",
                                        "seconds",
                                        "interval_ms",
                                        "rounds",
                                        "gate",
                                        "sampling",
                                        "gpus",
                                        "pairs",
                                        "verdicts",
                                        "findings"}));
    EXPECT_EQ(doc["schema"], "peergate.watch/v1");
    EXPECT_EQ(doc["command"], nlohmann::ordered_json({"sleep", "0.4"}));
    EXPECT_EQ(doc["exit_status"], 0);
    EXPECT_EQ(doc["gate"]["p2p"], true);
    EXPECT_GE(doc["rounds"].get<int>(), 3);
    EXPECT_EQ(doc["gpus"][0]["nvlink"]["counting"], "per_link");
    EXPECT_EQ(doc["gpus"][0]["nvlink"]["links"].size(), 4U);
    ASSERT_EQ(doc["pairs"].size(), 2U);
    EXPECT_EQ(doc["pairs"][0]["from"], 0);
    EXPECT_EQ(doc["pairs"][0]["to"], 1);
    EXPECT_EQ(doc["pairs"][0]["via"], "gpu");
    // 40 GB/s each way: the average over the rounds is that rate, within the clock's jitter.
    EXPECT_NEAR(doc["pairs"][0]["average_bytes_per_s"].get<double>(), 40e9, 4e9);
    EXPECT_EQ(verdict_of(doc), "nvlink");
    EXPECT_EQ(doc["verdicts"][0]["route"], "direct");
    EXPECT_GT(doc["verdicts"][0]["nvlink_bytes"].get<double>(), 1e9);
    EXPECT_TRUE(doc["findings"].empty()) << doc["findings"].dump();
}

TEST(WatchE2e, AJobGivenP2pThatMovesDataOverPcieIsPcieWithAFinding) {
    const auto doc = watch_json("watch-pcie-only-2x");
    EXPECT_EQ(verdict_of(doc), "pcie");
    EXPECT_NE(find_finding(doc, "watch_p2p_unused", "[0,1]"), nullptr) << doc["findings"].dump();
    EXPECT_GT(doc["gpus"][0]["pcie"]["tx_bytes"].get<double>(), 1e9);
}

TEST(WatchE2e, AnIdleJobIsIdle) {
    const auto doc = watch_json("watch-idle-2x");
    EXPECT_EQ(verdict_of(doc), "idle");
    EXPECT_TRUE(doc["findings"].empty()) << doc["findings"].dump();
}

TEST(WatchE2e, ADriverWithoutTheCountersIsUnknownWithTheReason) {
    const auto doc = watch_json("watch-no-counters-2x");
    EXPECT_EQ(verdict_of(doc), "unknown");
    EXPECT_NE(doc["verdicts"][0]["reason"].get<std::string>().find("NVLink counters unavailable"),
              std::string::npos);
    EXPECT_EQ(doc["gpus"][0]["nvlink"]["counting"], "unavailable");
    EXPECT_EQ(doc["gpus"][0]["pcie"]["known"], false);
    EXPECT_NE(find_finding(doc, "watch_counters_unavailable", "[0]"), nullptr);
}

// The counters start 5 GB short of 2^64 at 10 GB/s: they wrap 0.5 s after the sampler's
// nvmlInit (no gate runs before it), inside the 1.2 s watched.
TEST(WatchE2e, CountersThatWrapAreCountedAcrossTheWrap) {
    const auto run = watch("watch-wrap-2x", {"--json", "--no-gate", "--", "sleep", "1.2"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["gate"], nullptr);
    EXPECT_EQ(doc["gpus"][0]["counter_resets"], 0);
    EXPECT_NEAR(doc["pairs"][0]["average_bytes_per_s"].get<double>(), 10e9, 1e9);
    EXPECT_EQ(verdict_of(doc), "nvlink");
}

TEST(WatchE2e, ADriverThatAnswersTheSumForEveryLinkIsStillNvlink) {
    const auto doc = watch_json("watch-summed-2x");
    EXPECT_EQ(doc["gpus"][0]["nvlink"]["counting"], "summed_only");
    EXPECT_NEAR(doc["pairs"][0]["average_bytes_per_s"].get<double>(), 40e9, 4e9)
        << "the sum once, not once a link";
    EXPECT_EQ(verdict_of(doc), "nvlink");
}

TEST(WatchE2e, ARankThatMovedNothingAndNvlinkErrorsThatGrewAreFindings) {
    const auto doc = watch_json("watch-nvswitch-4x");
    ASSERT_EQ(doc["verdicts"].size(), 6U);
    EXPECT_EQ(doc["verdicts"][0]["route"], "nvswitch");
    EXPECT_EQ(verdict_of(doc, 0), "nvlink");  // 0-1
    EXPECT_EQ(verdict_of(doc, 2), "idle");    // 0-3
    EXPECT_NE(find_finding(doc, "watch_gpu_idle", "[3]"), nullptr) << doc["findings"].dump();
    const auto* grew = find_finding(doc, "nvlink_errors_under_load", "[1]");
    ASSERT_NE(grew, nullptr) << doc["findings"].dump();
    EXPECT_NE((*grew)["message"].get<std::string>().find("While the job ran"), std::string::npos);
    EXPECT_EQ(doc["pairs"][0]["via"], "nvswitch");
}

// A driver that hangs in the first round: the command still runs and ends, watch waits the
// watchdog for the sampler, and says so.
TEST(WatchE2e, ADriverThatStopsAnsweringNeverHoldsTheCommandOrTheWatch) {
    const auto run = watch("watch-hang-2x", {"--json", "--", "sh", "-c", "exit 3"});
    EXPECT_EQ(run.process.exit_code, 3) << run.process.err;
    EXPECT_LT(run.elapsed, std::chrono::seconds(30));
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["sampling"]["stopped"], "NVML did not answer within 10 s");
    EXPECT_NE(find_finding(doc, "watch_sampling_stopped"), nullptr);
    EXPECT_EQ(verdict_of(doc), "unknown");
}

TEST(WatchE2e, AttachSamplesWithoutLaunching) {
    const auto run = watch("watch-nvlink-2x", {"--json", "--attach", "--seconds", "0.3"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["command"], nullptr);
    EXPECT_EQ(doc["exit_status"], nullptr);
    EXPECT_EQ(doc["gate"], nullptr);
    EXPECT_EQ(verdict_of(doc), "nvlink");
    // A finding that is a warning makes an attached watch exit 1.
    EXPECT_EQ(watch("watch-nvswitch-4x", {"--attach", "--seconds", "0.3"}).process.exit_code, 1);
    // No NVML: nothing could be sampled.
    const auto none = run_peergate({"watch", "--attach", "--seconds", "0.1"});
    EXPECT_EQ(none.process.exit_code, 2);
    EXPECT_NE(none.process.out.find("NVML is not available"), std::string::npos)
        << none.process.out;
}

TEST(WatchE2e, TheExitStatusIsTheCommandsAndTheReportGoesToStderr) {
    const auto run = watch("watch-nvlink-2x", {"--", "sh", "-c", "echo out; exit 7"});
    EXPECT_EQ(run.process.exit_code, 7);
    EXPECT_EQ(run.process.out, "out\n") << "stdout is the command's";
    EXPECT_NE(run.process.err.find("exited with status 7"), std::string::npos) << run.process.err;
    EXPECT_NE(run.process.err.find("GPU0 - GPU1  nvlink"), std::string::npos) << run.process.err;
    const auto killed = watch("watch-idle-2x", {"--", "sh", "-c", "kill -TERM $$"});
    EXPECT_EQ(killed.process.exit_code, 143) << "128 + SIGTERM, as a shell says";
}

// SIGTERM sent to watch (by a process: kill) is passed on to the command, which ends; watch
// then reports and exits with the command's status.
TEST(WatchE2e, ASignalSentToWatchIsPassedOnToTheCommand) {
    util::Command command;
    command.argv = {
        "/bin/sh",
        "-c",
        std::string(PEERGATE_BINARY) + " --simulate " + fixture_machine("watch-idle-2x") +
            " watch --no-gate -- sleep 30 & p=$!; sleep 1; kill -TERM $p; wait $p; echo rc=$?"};
    command.env = clean_env();
    command.timeout = std::chrono::seconds(25);
    const auto result = util::run_process(command);
    ASSERT_TRUE(result.has_value());
    EXPECT_FALSE(result->timed_out) << "the command did not get the signal";
    EXPECT_NE(result->out.find("rc=143"), std::string::npos) << result->out << result->err;
    EXPECT_NE(result->err.find("'sleep 30' exited with status 143"), std::string::npos)
        << result->err;
}

TEST(WatchE2e, OutputIsWrittenWholeAndStdoutStaysTheCommands) {
    ScratchDir dir;
    const std::string path = dir.path() + "/watch.json";
    const auto run = watch("watch-nvlink-2x", {"--json", "--output", path, "--", "true"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(run.process.out, "");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const auto doc = nlohmann::ordered_json::parse(text.str(), nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << text.str();
    EXPECT_EQ(doc["schema"], "peergate.watch/v1");
}

TEST(WatchE2e, UsageErrorsExitTwoAndSayWhat) {
    const auto nothing = watch("watch-idle-2x", {});
    EXPECT_EQ(nothing.process.exit_code, 2);
    EXPECT_NE(nothing.process.err.find("watch needs a command or --attach"), std::string::npos);
    EXPECT_EQ(watch("watch-idle-2x", {"--attach", "--", "true"}).process.exit_code, 2);
    const auto missing = watch("watch-idle-2x", {"--", "/nonexistent/program"});
    EXPECT_EQ(missing.process.exit_code, 2);
    EXPECT_NE(missing.process.err.find("cannot run '/nonexistent/program'"), std::string::npos)
        << missing.process.err;
    EXPECT_EQ(watch("watch-idle-2x", {"--interval", "5", "--", "true"}).process.exit_code, 2);
    EXPECT_EQ(
        watch("watch-idle-2x", {"--no-gate", "--gpus", "0,x", "--", "true"}).process.exit_code, 2);
}

// A GPU the host lacks is a usage error (issue 52): the command never starts.
TEST(WatchE2e, AGpuNotOnTheHostIsAUsageErrorAndTheCommandNeverStarts) {
    const auto run = watch("watch-nvlink-2x", {"--gpus", "0,9", "--", "sh", "-c", "echo ran"});
    EXPECT_EQ(run.process.exit_code, 2) << run.process.err;
    EXPECT_EQ(run.process.out, "") << "the command ran";
    EXPECT_EQ(run.process.err, "peergate: --gpus: GPU 9 is not on this host (its GPUs: 0, 1)\n");
}

// Where no CUDA program can start (an NVSwitch fabric the manager has not registered: cuInit
// answers 802), watch does not start the command, unless --even-if-unusable asks for it.
TEST(WatchE2e, NoCommandStartsWhereNoCudaProgramCanUnlessAskedFor) {
    const auto refused = watch("fabric-in-progress-8x", {"--", "sh", "-c", "echo ran"});
    EXPECT_EQ(refused.process.exit_code, 2) << refused.process.err;
    EXPECT_EQ(refused.process.out, "") << "the command ran";
    EXPECT_TRUE(refused.process.err.starts_with(
        "peergate: 'sh' not started: the CUDA driver is installed but does not initialise"))
        << refused.process.err;
    EXPECT_NE(refused.process.err.find("--even-if-unusable"), std::string::npos);
    const auto anyway = watch("fabric-in-progress-8x",
                              {"--even-if-unusable", "--", "sh", "-c", "echo ran; exit 4"});
    EXPECT_EQ(anyway.process.exit_code, 4) << anyway.process.err;
    EXPECT_EQ(anyway.process.out, "ran\n");
    EXPECT_NE(anyway.process.err.find("peergate: warning: no CUDA program can start here"),
              std::string::npos)
        << anyway.process.err;
}

}  // namespace
}  // namespace peergate::test
