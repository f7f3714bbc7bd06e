// SPDX-License-Identifier: Apache-2.0
// doctor --html's page (report/doctor/html.cpp).
#include "../policy/gate_test_support.hpp"
#include "report/doctor/html.hpp"

#include <gtest/gtest.h>

namespace peergate::report::doctor {
namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(DoctorHtml, EscapesEveryCharacterThatCouldOpenMarkup) {
    EXPECT_EQ(html_escape("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
    EXPECT_EQ(html_escape(""), "");
    EXPECT_EQ(html_escape("GPU 0 -> GPU 1"), "GPU 0 -&gt; GPU 1");
}

TEST(DoctorHtml, PageHoldsTheVerdictFindingsMatrixAndPairs) {
    policy::doctor::DoctorInput input;
    input.parts.push_back(policy::doctor::PartStatus{.what = "NVML library", .found = true});
    input.discovery.topology = test::bridged_a100_4x();
    input.pairs.push_back(policy::doctor::PairLayers{.src = 0,
                                                     .dst = 1,
                                                     .label = "NV12",
                                                     .nvml = {"OK", "OK", "OK", "OK", "OK"},
                                                     .cuda_can_access_peer = true,
                                                     .probe = "ok"});
    input.layer_notes.push_back("NVML answers not recorded: <hung>");
    policy::doctor::DoctorReport report{.verdict = policy::doctor::Verdict::problems};
    report.findings.push_back(model::Finding{.code = peergate::model::FindingCode::probe_data_lost,
                                             .severity = model::Severity::error,
                                             .message = "lost <data> & more",
                                             .remedy = "boot with iommu=pt"});
    const auto page = doctor_to_html(input, report, policy::assess::assess(input, report, {}));
    EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0U);
    EXPECT_TRUE(contains(page, "<title>peergate doctor: problems</title>"));
    EXPECT_TRUE(contains(page,
                         "<h3 class=\"error\">error</h3>\n<ul>\n<li class=\"error\"><b>"
                         "probe_data_lost</b>: lost &lt;data&gt; &amp; more<br>remedy: "
                         "<code>boot with iommu=pt</code></li>"));
    EXPECT_TRUE(contains(page, "<p class=\"reason error\">lost &lt;data&gt; &amp; more</p>"));
    EXPECT_TRUE(contains(page, "<td class=\"nvlink\">NV12</td>"));
    EXPECT_TRUE(contains(page, "<td>SYS</td>"));
    EXPECT_TRUE(contains(page, "<td>GPU0 -&gt; GPU1</td>"));
    EXPECT_TRUE(contains(page, "note: NVML answers not recorded: &lt;hung&gt;"));
    EXPECT_FALSE(contains(page, "<hung>"));
    EXPECT_TRUE(page.ends_with("</body>\n</html>\n"));
}

}  // namespace
}  // namespace peergate::report::doctor
