// SPDX-License-Identifier: Apache-2.0
// docs/examples/peergate-alerts.yml: the alerting rules README users copy. Every metric they
// name is one the textfile holds, and promtool accepts them and their own unit tests.
#include "support/peergate_process.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

namespace peergate::test {
namespace {

const std::string kExamples = std::string(PEERGATE_SOURCE_DIR) + "/docs/examples";

// The textfiles of machines that between them write every family the rules name.
std::string alerting_textfiles() {
    const auto nvlinked = run_peergate({"--simulate", "hgx-b200-8x", "export", "prometheus"});
    const auto probed =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "prometheus", "--probe"});
    // The link-health families are written where sysfs shows the links and their counters.
    const auto narrow =
        run_peergate({"--simulate", fixture_machine("pcie-narrow-4x"), "export", "prometheus"});
    const auto aer =
        run_peergate({"--simulate", fixture_machine("pcie-aer-4x"), "export", "prometheus"});
    return nvlinked.process.out + probed.process.out + narrow.process.out + aer.process.out;
}

// The metric names the rules use.
std::set<std::string> named_by_rules() {
    const auto rules = util::read_file(kExamples + "/peergate-alerts.yml");
    EXPECT_TRUE(rules.has_value());
    const std::string text = rules.value_or("");
    const std::regex name("peergate_[a-z0-9_]+");
    std::set<std::string> named;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), name);
         it != std::sregex_iterator();
         ++it) {
        named.insert(it->str());
    }
    return named;
}

TEST(ExportAlerts, EveryMetricTheRulesNameIsOneTheTextfileHas) {
    const auto textfiles = alerting_textfiles();
    const auto named = named_by_rules();
    EXPECT_GE(named.size(), 9U);
    for (const auto& metric : named) {
        EXPECT_NE(textfiles.find("# TYPE " + metric + " "), std::string::npos) << metric;
    }
}

// A family kept for one release says "DEPRECATED: use X" at the start of its HELP; the rules
// users copy use X (issue 35: the per-run integrity counter, the per-GPU NVLink sums, the
// findings by code one letter from the findings by severity).
TEST(ExportAlerts, TheRulesUseNoDeprecatedFamily) {
    const auto textfiles = alerting_textfiles();
    for (const auto& metric : named_by_rules()) {
        EXPECT_EQ(textfiles.find("# HELP " + metric + " DEPRECATED"), std::string::npos) << metric;
    }
}

TEST(ExportAlerts, PromtoolChecksAndTestsTheRules) {
    if (!std::filesystem::exists("/usr/bin/promtool")) {
        GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
    }
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"check", "rules", "peergate-alerts.yml"},
          std::vector<std::string>{"test", "rules", "peergate-alerts.test.yml"}}) {
        util::Command command;
        command.argv = {"/bin/sh",
                        "-c",
                        "cd \"$1\" && shift && exec /usr/bin/promtool \"$@\"",
                        "sh",
                        kExamples};
        command.argv.insert(command.argv.end(), args.begin(), args.end());
        command.env = clean_env();
        command.timeout = std::chrono::seconds(60);
        const auto result = util::run_process(command);
        ASSERT_TRUE(result.has_value());
        EXPECT_EQ(result->exit_code, 0) << args[0] << ":\n" << result->out << result->err;
    }
}

}  // namespace
}  // namespace peergate::test
