// SPDX-License-Identifier: Apache-2.0
// fleet --html's page (report/fleet/html.cpp).
#include "report/fleet/html.hpp"

#include <gtest/gtest.h>

namespace peergate::report::fleet {
namespace {

TEST(FleetHtml, AnchorsAreSafeAndNamesEscaped) {
    EXPECT_EQ(node_anchor("gpu-07.rack2"), "node-gpu-07.rack2");
    EXPECT_EQ(node_anchor("a b\"<c>"), "node-a_b__c_");
    policy::fleet::FleetReport report;
    report.failed = true;
    policy::fleet::FleetNodeView view;
    view.node.node = "n<1>";
    view.node.verdict = "problems";
    view.node.findings.push_back(
        model::FleetFinding{.code = "nvlink_down", .severity = "error", .message = "x & y"});
    view.differs = {"topology"};
    report.nodes.push_back(view);
    report.issues.push_back(policy::fleet::FleetIssue{
        .code = "node_problems", .severity = "error", .nodes = {"n<1>"}, .message = "m"});
    const auto page = fleet_to_html(report);
    EXPECT_EQ(page.find("n<1>"), std::string::npos);
    EXPECT_NE(page.find("<a href=\"#node-n_1_\">n&lt;1&gt;</a>"), std::string::npos);
    EXPECT_NE(page.find("<h3 id=\"node-n_1_\">n&lt;1&gt;</h3>"), std::string::npos);
    EXPECT_NE(page.find("<b>nvlink_down</b> [error]: x &amp; y"), std::string::npos);
    EXPECT_NE(page.find("<td class=\"differs\">unreadable</td>"), std::string::npos);
    EXPECT_NE(page.find("<title>peergate fleet: problems</title>"), std::string::npos);
    EXPECT_EQ(page.find("<script"), std::string::npos);
}

}  // namespace
}  // namespace peergate::report::fleet
