// SPDX-License-Identifier: Apache-2.0
// The textfile's families mean what their names and types say (issue 35, item 2): what a run
// measures anew is a gauge, the findings by code are not one letter from the findings by
// severity, and the bench's bidirectional rate is exported beside the one-way rate.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

TEST(ExportPrometheusFamilies, LostCopiesOfThisRunAreAGauge) {
    const auto run =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "prometheus", "--probe"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto& text = run.process.out;
    EXPECT_THAT(text, testing::HasSubstr("# TYPE peergate_p2p_integrity_failed_checks gauge\n"));
    EXPECT_THAT(text,
                testing::ContainsRegex(
                    "peergate_p2p_integrity_failed_checks\\{gpu=\"0\",peer_gpu=\"1\"\\} [1-9]"));
    EXPECT_THAT(text, testing::HasSubstr("# TYPE peergate_p2p_integrity_checks gauge\n"));
    EXPECT_THAT(text,
                testing::ContainsRegex(
                    "peergate_p2p_integrity_checks\\{gpu=\"0\",peer_gpu=\"1\"\\} [1-9]"));
    EXPECT_THAT(text,
                testing::HasSubstr("# HELP peergate_p2p_integrity_errors_total DEPRECATED: use "
                                   "peergate_p2p_integrity_failed_checks"));
}

TEST(ExportPrometheusFamilies, EachFindingCodeGivenIsActive) {
    const auto run =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(run.process.out,
                testing::HasSubstr("# TYPE peergate_doctor_finding_active gauge\n"));
    EXPECT_THAT(run.process.out,
                testing::HasSubstr("peergate_doctor_finding_active{code=\"dmar_fault_gpu\","
                                   "severity=\"error\"} 1\n"));
}

TEST(ExportPrometheusFamilies, TheBenchsBidirectionalRateIsExported) {
    const ScratchDir scratch;
    const auto bench = run_peergate(
        {"--simulate", fixture_machine("bench-nvlink-2x"), "bench", "--json", "--size-mib", "4"});
    ASSERT_EQ(bench.process.exit_code, 0) << bench.process.err;
    ASSERT_THAT(bench.process.out, testing::ContainsRegex("\"bidirectional_gbps\": ?[0-9]"));
    const auto file = scratch.file("bench.json");
    ASSERT_TRUE(util::write_file_atomically(file, bench.process.out).has_value());
    const auto run = run_peergate({"--simulate",
                                   fixture_machine("bench-nvlink-2x"),
                                   "export",
                                   "prometheus",
                                   "--bandwidth",
                                   file});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(
        run.process.out,
        testing::HasSubstr("# TYPE peergate_p2p_bidirectional_bandwidth_bytes_per_second gauge\n"));
    EXPECT_THAT(run.process.out,
                testing::ContainsRegex("peergate_p2p_bidirectional_bandwidth_bytes_per_second\\{"
                                       "gpu=\"0\",peer_gpu=\"1\"\\} [1-9][0-9.e+]*\n"));
    EXPECT_THAT(run.process.out,
                testing::ContainsRegex("peergate_p2p_bandwidth_bytes_per_second\\{gpu=\"0\","
                                       "peer_gpu=\"1\",mode=\"unidirectional\"\\} [1-9]"));
}

}  // namespace
}  // namespace peergate::test
