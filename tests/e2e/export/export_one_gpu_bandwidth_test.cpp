// SPDX-License-Identifier: Apache-2.0
// `export ... --bandwidth FILE` on a one-GPU node (issue 35, item 4): bench there measures
// no pair, so there is nothing to join, and the rest of the export is written. Before, the
// export exited 2 with "no measured pair", and a cron line that always passes --bandwidth
// left those nodes' labels and metrics stale.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

std::string one_gpu_bench(const ScratchDir& scratch) {
    const auto bench = run_peergate({"--simulate", "single-h200", "bench", "--json"});
    EXPECT_EQ(bench.process.exit_code, 0) << bench.process.err;
    const std::string file = scratch.file("bench.json");
    EXPECT_TRUE(util::write_file_atomically(file, bench.process.out).has_value());
    return file;
}

TEST(ExportOneGpuBandwidth, NfdIsWrittenWithoutABandwidthLabel) {
    const ScratchDir scratch;
    const auto file = one_gpu_bench(scratch);
    const auto run =
        run_peergate({"--simulate", "single-h200", "export", "nfd", "--bandwidth", file});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(run.process.out.find("/gpu.count=1\n"), std::string::npos) << run.process.out;
    EXPECT_EQ(run.process.out.find("min-bw"), std::string::npos) << run.process.out;
}

TEST(ExportOneGpuBandwidth, PrometheusIsWrittenWithoutPairRates) {
    const ScratchDir scratch;
    const auto file = one_gpu_bench(scratch);
    const auto run =
        run_peergate({"--simulate", "single-h200", "export", "prometheus", "--bandwidth", file});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(run.process.out.find("\npeergate_gpu_info{gpu=\"0\""), std::string::npos)
        << run.process.out;
}

}  // namespace
}  // namespace peergate::test
