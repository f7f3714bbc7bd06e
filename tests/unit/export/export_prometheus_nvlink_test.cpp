// SPDX-License-Identifier: Apache-2.0
// Each NVLink's error counters have a series of their own, up or down (issue 35, item 2):
// NVML is not asked about a link that is not active, so a link that goes down keeps the counts
// the textfile it replaces held for it, and the per-GPU sums (deprecated) stop falling.
#include "export_facts_fixture.hpp"
#include "export_prometheus_check.hpp"
#include "report/exports/prometheus.hpp"
#include "support/assessed_facts.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace peergate::report::exports {
namespace {

using test::expect_well_formed;
using test::facts_from_topo_m;

// Four links of GPU 0 (UUID GPU-0) on the DL counters: 0 counts 5 replays, 1 is clean, 2 is
// down (not asked), 3 answered nothing. GPU 1 is not walked.
ExportFacts four_link_facts() {
    auto facts = facts_from_topo_m("unsloth_TOPO_PCIE_2X.txt");
    const auto dl = [](std::uint64_t replay) {
        auto counts = model::NvlinkErrorCounts::clean(model::NvlinkCounterSet::dl);
        counts.value[0] = replay;
        return counts;
    };
    facts.doctor.links.push_back(policy::doctor::GpuLinks{.gpu = 0,
                                                          .name = "H100",
                                                          .slots = 4,
                                                          .down = {2},
                                                          .errors = {{.link = 0, .counts = dl(5)},
                                                                     {.link = 1, .counts = dl(0)},
                                                                     {.link = 3, .counts = {}}}});
    return facts;
}

TEST(ExportPrometheusNvlink, EachLinkHasItsStateAndCounters) {
    const auto text = export_prometheus(test::assessed(four_link_facts()));
    expect_well_formed(text);
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nvlink_link_up{gpu=\"0\",link=\"0\"} 1\n"
                                   "peergate_gpu_nvlink_link_up{gpu=\"0\",link=\"1\"} 1\n"
                                   "peergate_gpu_nvlink_link_up{gpu=\"0\",link=\"2\"} 0\n"
                                   "peergate_gpu_nvlink_link_up{gpu=\"0\",link=\"3\"} 1\n"));
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nvlink_link_errors_total{gpu=\"0\",link=\"0\","
                                   "counter=\"replay\"} 5\n"
                                   "peergate_gpu_nvlink_link_errors_total{gpu=\"0\",link=\"0\","
                                   "counter=\"recovery\"} 0\n"));
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_gpu_nvlink_link_errors_read{gpu=\"0\",link=\"0\"} 1\n"
                           "peergate_gpu_nvlink_link_errors_read{gpu=\"0\",link=\"1\"} 1\n"
                           "peergate_gpu_nvlink_link_errors_read{gpu=\"0\",link=\"2\"} 0\n"
                           "peergate_gpu_nvlink_link_errors_read{gpu=\"0\",link=\"3\"} 0\n"));
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("link=\"2\",counter=")));  // never read
    EXPECT_THAT(text, testing::Not(testing::HasSubstr("{gpu=\"1\",link=")));     // not walked
    // Links 2 and 3 have no count and nothing to carry: a sum without them (5) could fall
    // below one an earlier run wrote with them, so GPU 0 has no sum (issue 52).
    EXPECT_THAT(text,
                testing::Not(testing::HasSubstr("peergate_gpu_nvlink_errors_total{gpu=\"0\"")));
}

TEST(ExportPrometheusNvlink, ADownLinkKeepsWhatTheReplacedTextfileHeld) {
    auto before = four_link_facts();
    before.doctor.links[0].down.clear();
    before.doctor.links[0].errors[2] = {
        .link = 2, .counts = model::NvlinkErrorCounts::clean(model::NvlinkCounterSet::dl)};
    before.doctor.links[0].errors[2].counts.value[0] = 18;
    before.doctor.links[0].errors[2].counts.value[1] = 2;
    const auto clean_link3 = model::LinkErrors{
        .link = 3, .counts = model::NvlinkErrorCounts::clean(model::NvlinkCounterSet::dl)};
    before.doctor.links[0].errors.push_back(clean_link3);
    const auto first = export_prometheus(test::assessed(before));

    auto after = four_link_facts();
    after.doctor.links[0].errors[2] = clean_link3;
    after.run.previous_link_errors = nvlink_link_errors_in(first);
    const auto text = export_prometheus(test::assessed(after));
    expect_well_formed(text);
    EXPECT_THAT(text,
                testing::HasSubstr("peergate_gpu_nvlink_link_errors_total{gpu=\"0\",link=\"2\","
                                   "counter=\"replay\"} 18\n"
                                   "peergate_gpu_nvlink_link_errors_total{gpu=\"0\",link=\"2\","
                                   "counter=\"recovery\"} 2\n"));
    EXPECT_THAT(
        text, testing::HasSubstr("peergate_gpu_nvlink_link_errors_read{gpu=\"0\",link=\"2\"} 0\n"));
    // The sum no longer falls from 23 to 5 when link 2 goes down.
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_gpu_nvlink_errors_total{gpu=\"0\",counter=\"replay\"} 23\n"));
    EXPECT_THAT(
        text,
        testing::HasSubstr("peergate_gpu_nvlink_errors_total{gpu=\"0\",counter=\"recovery\"} 2\n"));
}

// A reading of this run wins, even a lower one: a driver reload resets the counters, and
// Prometheus should see that reset.
TEST(ExportPrometheusNvlink, ThisRunsReadingWinsOverTheCarriedOne) {
    auto facts = four_link_facts();
    facts.run.previous_link_errors[{.uuid = "GPU-0", .link = 0, .counter = "replay"}] = 40;
    EXPECT_THAT(export_prometheus(test::assessed(facts)),
                testing::HasSubstr("peergate_gpu_nvlink_link_errors_total{gpu=\"0\",link=\"0\","
                                   "counter=\"replay\"} 5\n"));
}

// Counts carry over by the GPU's UUID: another GPU at the same index (a replaced board, another
// node's file) carries nothing.
TEST(ExportPrometheusNvlink, CountsCarryOverOnlyToTheSameGpu) {
    const std::string previous =
        "peergate_gpu_info{gpu=\"0\",UUID=\"GPU-old\",pci_bus_id=\"\",model_name=\"H100\","
        "numa_node=\"\"} 1\n"
        "peergate_gpu_nvlink_link_errors_total{gpu=\"0\",link=\"2\",counter=\"replay\"} 18\n";
    const auto carried = nvlink_link_errors_in(previous);
    ASSERT_EQ(carried.size(), 1U);
    EXPECT_EQ(carried.begin()->first.uuid, "GPU-old");
    auto facts = four_link_facts();
    facts.run.previous_link_errors = carried;
    EXPECT_THAT(export_prometheus(test::assessed(facts)),
                testing::Not(testing::HasSubstr("link=\"2\",counter=")));
}

TEST(ExportPrometheusNvlink, TheCarriedCountsIgnoreWhatTheyDoNotKnow) {
    EXPECT_TRUE(nvlink_link_errors_in("").empty());
    const std::string info =
        "peergate_gpu_info{gpu=\"3\",UUID=\"GPU-3\",pci_bus_id=\"\",model_name=\"a \\\"b\\\"\","
        "numa_node=\"0\"} 1\n";
    const auto series = [&](const std::string& line) {
        return nvlink_link_errors_in(info + line + "\n");
    };
    EXPECT_EQ(
        series("peergate_gpu_nvlink_link_errors_total{gpu=\"3\",link=\"1\",counter=\"replay\"} "
               "7")
            .at({.uuid = "GPU-3", .link = 1, .counter = "replay"}),
        7.0);
    EXPECT_TRUE(series("peergate_gpu_nvlink_link_errors_total{gpu=\"4\",link=\"1\",counter="
                       "\"replay\"} 7")
                    .empty());  // no UUID known for GPU 4
    EXPECT_TRUE(series("peergate_gpu_nvlink_link_errors_total{gpu=\"3\",link=\"x\",counter="
                       "\"replay\"} 7")
                    .empty());
    EXPECT_TRUE(series("peergate_gpu_nvlink_link_errors_total{gpu=\"3\",link=\"1\",counter="
                       "\"bogus\"} 7")
                    .empty());
    EXPECT_TRUE(series("peergate_gpu_nvlink_link_errors_total{gpu=\"3\",link=\"1\",counter="
                       "\"replay\"} -1")
                    .empty());
    EXPECT_TRUE(series("# peergate_gpu_nvlink_link_errors_total{gpu=\"3\",link=\"1\",counter="
                       "\"replay\"} 7")
                    .empty());
    EXPECT_TRUE(series("peergate_gpu_nvlink_link_errors_total{gpu=\"3\",link=\"1\"").empty());
}

}  // namespace
}  // namespace peergate::report::exports
