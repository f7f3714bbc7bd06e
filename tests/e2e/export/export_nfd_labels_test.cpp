// SPDX-License-Identifier: Apache-2.0
// What the NFD labels of the built-in machines mean (issue 35, item 3): nothing changes from
// run to run on an unchanged node, NVLink islands are sets of two GPUs or more, the largest
// one is named, and the slowest pair's rate is an integer that Gt and Lt can compare.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

namespace peergate::test {
namespace {

constexpr std::string_view kNfdPrefix = "peergate.feature.node.kubernetes.io/";

// The label lines of `peergate --simulate MACHINE export nfd ARGS...`, by name.
std::map<std::string, std::string> nfd_labels(const std::string& machine,
                                              const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {"--simulate", machine, "export", "nfd"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto run = run_peergate(argv);
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    std::map<std::string, std::string> labels;
    for (const auto line : util::split_lines(run.process.out)) {
        if (line.starts_with(kNfdPrefix)) {
            const auto eq = line.find('=');
            labels[std::string(line.substr(kNfdPrefix.size(), eq - kNfdPrefix.size()))] =
                std::string(line.substr(eq + 1));
        }
    }
    return labels;
}

TEST(ExportNfdLabels, AnUnchangedNodeGetsTheSameLabelsAtEveryRun) {
    const auto first = nfd_labels("bridged-a100-4x", {"--expiry-hours", "1"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // the clock's next second
    const auto second = nfd_labels("bridged-a100-4x", {"--expiry-hours", "1"});
    EXPECT_EQ(first, second);
    EXPECT_EQ(first.count("timestamp"), 0U);
    const auto asked = nfd_labels("bridged-a100-4x", {"--nfd-timestamp"});
    ASSERT_EQ(asked.count("timestamp"), 1U);
    EXPECT_THAT(asked.at("timestamp"), testing::MatchesRegex("[0-9]+"));
}

TEST(ExportNfdLabels, IslandsAreGpusJoinedByNvlink) {
    struct Case {
        const char* machine;
        const char* islands;
        const char* largest;
        const char* gpus;  // "" : no label
    };

    for (const Case& c : {Case{"rtx4090-8x-pcie", "0", "0", ""},
                          Case{"single-h200", "0", "0", ""},
                          Case{"bridged-a100-4x", "2", "2", "0_1"},
                          Case{"dgx1-v100", "1", "8", "0_1_2_3_4_5_6_7"},
                          Case{"hgx-b200-8x", "1", "8", "0_1_2_3_4_5_6_7"}}) {
        SCOPED_TRACE(c.machine);
        const auto labels = nfd_labels(c.machine);
        EXPECT_EQ(labels.at("nvlink.islands"), c.islands);
        EXPECT_EQ(labels.at("nvlink.largest-island-size"), c.largest);
        if (*c.gpus == '\0') {
            EXPECT_EQ(labels.count("nvlink.largest-island-gpus"), 0U);
        } else {
            EXPECT_EQ(labels.at("nvlink.largest-island-gpus"), c.gpus);
        }
    }
    EXPECT_EQ(nfd_labels("bridged-a100-4x", {"--gpus", "1,2,3"}).at("nvlink.largest-island-gpus"),
              "2_3");
}

TEST(ExportNfdLabels, TheSlowestPairIsAWholeNumberOfMegabytesPerSecond) {
    const ScratchDir scratch;
    const auto bench = scratch.file("bench.json");
    ASSERT_TRUE(util::write_file_atomically(
                    bench,
                    R"({"schema": "peergate.bench/v1", "pairs": [)"
                    R"({"src": 0, "dst": 1, "p2p_gbps": 23.9, "staged_gbps": 12.1},)"
                    R"({"src": 1, "dst": 0, "p2p_gbps": 24.05, "staged_gbps": 12.0}]})")
                    .has_value());
    const auto labels = nfd_labels("pcie-rtx6000ada-2x-iommu", {"--bandwidth", bench});
    EXPECT_EQ(labels.at("p2p.min-bw-mbytes-per-second"), "23900");
    EXPECT_EQ(labels.at("p2p.min-bw-gbps"), "23.9");  // deprecated, for one release
}

}  // namespace
}  // namespace peergate::test
