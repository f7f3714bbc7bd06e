// SPDX-License-Identifier: Apache-2.0
// Bandwidth across a fleet by link class (policy/fleet/fleet_bandwidth.cpp).
#include "policy/fleet/fleet.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::fleet {
namespace {

model::FleetNode node(const std::string& name, std::vector<model::FleetPairRate> rates) {
    model::FleetNode n;
    n.node = name;
    n.bandwidth = std::move(rates);
    return n;
}

std::vector<model::FleetPairRate> nv18(double gbps01, double gbps10 = 700) {
    return {{.src = 0, .dst = 1, .link = "NV18", .p2p_gbps = gbps01},
            {.src = 1, .dst = 0, .link = "NV18", .p2p_gbps = gbps10}};
}

TEST(FleetBandwidth, APairUnderHalfItsClassMedianIsNamedWithItsNode) {
    const auto a = node("a", nv18(700));
    const auto b = node("b", nv18(710));
    const auto c = node("c", nv18(300));
    const auto judgement = judge_bandwidth({&a, &b, &c});
    ASSERT_EQ(judgement.classes.size(), 1U);
    EXPECT_EQ(judgement.classes[0].link, "NV18");
    EXPECT_DOUBLE_EQ(judgement.classes[0].median_gbps, 700);
    EXPECT_EQ(judgement.classes[0].samples, 6U);
    EXPECT_EQ(judgement.classes[0].nodes, 3U);
    ASSERT_EQ(judgement.outliers.size(), 1U);
    EXPECT_EQ(judgement.outliers[0].node, "c");
    EXPECT_NE(judgement.outliers[0].message.find("GPU0->GPU1 (NV18) 300.0 GB/s"), std::string::npos)
        << judgement.outliers[0].message;
}

TEST(FleetBandwidth, ClassesAreNotMixedAndSmallClassesAreNotJudged) {
    auto a = node("a", nv18(700));
    a.bandwidth.push_back({.src = 0, .dst = 2, .link = "SYS", .p2p_gbps = 20});
    auto b = node("b", nv18(700));
    b.bandwidth.push_back({.src = 0, .dst = 2, .link = "SYS", .p2p_gbps = 5});
    const auto judgement = judge_bandwidth({&a, &b});
    ASSERT_EQ(judgement.classes.size(), 2U);
    EXPECT_TRUE(judgement.outliers.empty()) << "two SYS samples: too few to call one slow";
    const auto alone = node("alone", nv18(700, 100));
    EXPECT_TRUE(judge_bandwidth({&alone}).outliers.empty()) << "one node has no peers";
}

TEST(FleetBandwidth, TheFleetVerdictCarriesTheClassesAndWarns) {
    const auto report = judge_fleet(
        {node("a", nv18(700)), node("b", nv18(700)), node("c", nv18(100))}, {}, std::nullopt);
    ASSERT_EQ(report.bandwidth.size(), 1U);
    const auto outlier =
        std::find_if(report.issues.begin(), report.issues.end(), [](const auto& issue) {
            return issue.code == "fleet_bandwidth_outlier";
        });
    ASSERT_NE(outlier, report.issues.end());
    EXPECT_EQ(outlier->severity, "warning");
    EXPECT_EQ(outlier->nodes, std::vector<std::string>{"c"});
}

}  // namespace
}  // namespace peergate::policy::fleet
