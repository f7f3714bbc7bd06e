// SPDX-License-Identifier: Apache-2.0
// The NVLink error counters stay counters when a link goes down (issue 35, item 2). NVML is not
// asked for the counters of a link that is not active, so GPU 5's link 9 in
// nvlink-errors-down-8x.json has no reading; before, its 18 replays left the GPU's sum (18 -> 0),
// which Prometheus reads as a reset and, once the link came back, as 18 new replays.
#include "support/peergate_process.hpp"
#include "support/prometheus_text.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace peergate::test {
namespace {

// The textfile after exporting `machines` one after the other into the same file.
std::string textfile_after(const ScratchDir& scratch, const std::vector<std::string>& machines) {
    const auto file = scratch.file("peergate.prom");
    for (const auto& machine : machines) {
        const auto run = run_peergate(
            {"--simulate", fixture_machine(machine), "export", "prometheus", "--output", file});
        EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    }
    return util::read_file(file).value_or("");
}

TEST(ExportNvlinkCounters, ALinkThatIsUpHasItsOwnSeries) {
    const ScratchDir scratch;
    const auto text = textfile_after(scratch, {"nvlink-errors-8x"});
    EXPECT_THAT(text, testing::HasSubstr("# TYPE peergate_gpu_nvlink_link_errors_total counter\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nvlink_link_errors_total{gpu=\"5\",link=\"9\","
                                   "counter=\"replay\"} 18\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nvlink_link_errors_total{gpu=\"5\",link=\"9\","
                                   "counter=\"recovery\"} 2\n"));
    EXPECT_THAT(text, testing::HasSubstr("peergate_gpu_nvlink_link_up{gpu=\"5\",link=\"9\"} 1\n"));
    EXPECT_THAT(
        text, testing::HasSubstr("peergate_gpu_nvlink_link_errors_read{gpu=\"5\",link=\"9\"} 1\n"));
    // GPU 1 link 7 answers no counter: the link is listed, its counters say they were not read.
    EXPECT_THAT(
        text, testing::HasSubstr("peergate_gpu_nvlink_link_errors_read{gpu=\"1\",link=\"7\"} 0\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("{gpu=\"1\",link=\"7\",counter=")));
}

TEST(ExportNvlinkCounters, ALinkThatWentDownKeepsItsCounts) {
    const ScratchDir scratch;
    const auto text = textfile_after(scratch, {"nvlink-errors-8x", "nvlink-errors-down-8x"});
    EXPECT_THAT(text, testing::HasSubstr("peergate_gpu_nvlink_link_up{gpu=\"5\",link=\"9\"} 0\n"));
    EXPECT_THAT(
        text, testing::HasSubstr("peergate_gpu_nvlink_link_errors_read{gpu=\"5\",link=\"9\"} 0\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nvlink_link_errors_total{gpu=\"5\",link=\"9\","
                                   "counter=\"replay\"} 18\n"));
    // The deprecated per-GPU sum keeps the down link's counts too: no fall to 0.
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_gpu_nvlink_errors_total{gpu=\"5\",counter=\"replay\"} 18\n"));
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_gpu_nvlink_errors_total{gpu=\"5\",counter=\"recovery\"} 2\n"));
    // And once it is up again, its own reading takes over.
    const auto back = textfile_after(scratch, {"nvlink-errors-8x"});
    EXPECT_THAT(
        back, testing::HasSubstr("peergate_gpu_nvlink_link_errors_read{gpu=\"5\",link=\"9\"} 1\n"));
}

// Without a textfile to carry from (stdout, or a first run), a down link's counters are unknown:
// the link is listed as down and unread, and no count is made up.
TEST(ExportNvlinkCounters, NothingIsMadeUpWithoutAnEarlierReading) {
    const auto run = run_peergate(
        {"--simulate", fixture_machine("nvlink-errors-down-8x"), "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto& text = run.process.out;
    EXPECT_THAT(
        text, testing::HasSubstr("peergate_gpu_nvlink_link_errors_read{gpu=\"5\",link=\"9\"} 0\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("{gpu=\"5\",link=\"9\",counter=")));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nvlink_link_errors_total{gpu=\"5\",link=\"8\","
                                   "counter=\"replay\"} 0\n"));
}

// Issue 52: no counter series falls across runs on one boot, whether each run stands alone
// (stdout, then moved into place: nothing to carry from) or replaces the same textfile. Without
// an earlier reading, GPU 5's sum cannot include its down link's 18 replays and 2 recoveries,
// so it has no sample rather than falling from 20 to 0; its link's own series ends too.
TEST(ExportNvlinkCounters, NoCounterFallsWhenALinkGoesDownBetweenStandaloneRuns) {
    std::map<std::string, double> last;
    for (const char* machine : {"nvlink-errors-8x", "nvlink-errors-down-8x", "nvlink-errors-8x"}) {
        const auto run =
            run_peergate({"--simulate", fixture_machine(machine), "export", "prometheus"});
        ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
        EXPECT_THAT(counters_that_fell(run.process.out, last), testing::IsEmpty()) << machine;
        if (std::string(machine) == "nvlink-errors-down-8x") {
            EXPECT_THAT(
                run.process.out,
                testing::Not(testing::HasSubstr("peergate_gpu_nvlink_errors_total{gpu=\"5\"")));
            EXPECT_THAT(run.process.out,
                        testing::HasSubstr(
                            "peergate_gpu_nvlink_errors_total{gpu=\"4\",counter=\"replay\"} 0\n"));
        }
    }
    EXPECT_EQ(last["peergate_gpu_nvlink_errors_total{gpu=\"5\",counter=\"replay\"}"], 18);
}

// The same through one textfile, with a run that examined other GPUs in between: that file has
// nothing of GPU 5 to carry, so the next run cannot sum its down link either.
TEST(ExportNvlinkCounters, NoCounterFallsAcrossRunsIntoOneTextfile) {
    const ScratchDir scratch;
    const auto file = scratch.file("peergate.prom");
    std::map<std::string, double> last;
    const std::vector<std::vector<std::string>> runs{{"nvlink-errors-8x"},
                                                     {"nvlink-errors-down-8x"},
                                                     {"nvlink-errors-8x", "--gpus", "0,1"},
                                                     {"nvlink-errors-down-8x"},
                                                     {"nvlink-errors-down-8x"},
                                                     {"nvlink-errors-8x"}};
    for (const auto& args : runs) {
        std::vector<std::string> argv{
            "--simulate", fixture_machine(args[0]), "export", "prometheus", "--output", file};
        argv.insert(argv.end(), args.begin() + 1, args.end());
        const auto run = run_peergate(argv);
        ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
        EXPECT_THAT(counters_that_fell(util::read_file(file).value_or(""), last),
                    testing::IsEmpty())
            << testing::PrintToString(args);
    }
    EXPECT_EQ(last["peergate_gpu_nvlink_errors_total{gpu=\"5\",counter=\"recovery\"}"], 2);
}

// The per-run and per-GPU families that the per-link ones replace say so at the start of HELP.
TEST(ExportNvlinkCounters, TheFamiliesReplacedSayDeprecatedAndWhatToUse) {
    const auto run =
        run_peergate({"--simulate", fixture_machine("nvlink-errors-8x"), "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(run.process.out,
                testing::HasSubstr("# HELP peergate_gpu_nvlink_errors_total DEPRECATED: use "
                                   "peergate_gpu_nvlink_link_errors_total"));
    EXPECT_THAT(run.process.out,
                testing::HasSubstr("# HELP peergate_doctor_finding DEPRECATED: use "
                                   "peergate_doctor_finding_active"));
}

}  // namespace
}  // namespace peergate::test
