// SPDX-License-Identifier: Apache-2.0
// docs/export.md says what each exported value means (issue 35): its tables name every NFD label
// and every Prometheus family the export writes, and its pod examples are ones the API server
// takes and the scheduler matches against a simulated node's labels (the Kubernetes rules
// as tests/scripts/check_nfd_selectors.py applies them; Gt on the integer bandwidth label).
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

namespace peergate::test {
namespace {

const std::string kExportPage = std::string(PEERGATE_SOURCE_DIR) + "/docs/export.md";

// A bench result of the simulated machine itself, as a cron line's --bandwidth reads it.
std::string bench_of(const ScratchDir& scratch, const std::string& machine) {
    const auto bench = run_peergate({"--simulate", machine, "bench", "--json", "--size-mib", "4"},
                                    clean_env(),
                                    std::chrono::seconds(110));
    EXPECT_EQ(bench.process.exit_code, 0) << bench.process.err;
    const auto file = scratch.file(std::filesystem::path(machine).stem().string() + "-bench.json");
    EXPECT_TRUE(util::write_file_atomically(file, bench.process.out).has_value());
    return file;
}

// One line per example of the page, as check_nfd_selectors.py judged it against the labels.
std::vector<std::string> judged_examples(const ScratchDir& scratch, const std::string& labels) {
    const auto file = scratch.file("features");
    EXPECT_TRUE(util::write_file_atomically(file, labels).has_value());
    util::Command command;
    command.argv = {"/usr/bin/python3",
                    std::string(PEERGATE_TEST_SCRIPTS) + "/check_nfd_selectors.py",
                    kExportPage,
                    file};
    command.env = clean_env();
    command.timeout = std::chrono::seconds(60);
    const auto result = util::run_process(command);
    EXPECT_TRUE(result.has_value());
    if (!result) {
        return {};
    }
    EXPECT_EQ(result->exit_code, 0) << result->out << result->err;
    std::vector<std::string> lines;
    for (const auto line : util::split_lines(result->out)) {
        lines.emplace_back(line);
    }
    return lines;
}

bool python_yaml_missing() {
    util::Command command;
    command.argv = {"/usr/bin/python3", "-c", "import yaml"};
    command.env = clean_env();
    const auto result = util::run_process(command);
    return !result || result->exit_code != 0;
}

TEST(ExportDocs, ThePodExamplesSelectAnNvlinkNodeAndNotAPcieOne) {
    if (python_yaml_missing()) {
        GTEST_SKIP() << "python3 with PyYAML is not installed (Debian package python3-yaml)";
    }
    const auto page = util::read_file(kExportPage).value_or("");
    EXPECT_THAT(page, testing::HasSubstr("nodeAffinity:"));
    EXPECT_THAT(page, testing::ContainsRegex("operator: Gt\n *values: \\[\"[0-9]+\"\\]"));
    const ScratchDir scratch;
    const auto nvlinked = run_peergate({"--simulate",
                                        "hgx-b200-8x",
                                        "export",
                                        "nfd",
                                        "--bandwidth",
                                        bench_of(scratch, "hgx-b200-8x")});
    ASSERT_EQ(nvlinked.process.exit_code, 0) << nvlinked.process.err;
    const auto selected = judged_examples(scratch, nvlinked.process.out);
    EXPECT_GE(selected.size(), 2U);
    for (const auto& line : selected) {
        EXPECT_THAT(line, testing::EndsWith(": selects")) << nvlinked.process.out;
    }
    const auto pcie = run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "nfd"});
    ASSERT_EQ(pcie.process.exit_code, 0) << pcie.process.err;
    const auto refused = judged_examples(scratch, pcie.process.out);
    EXPECT_EQ(refused.size(), selected.size());
    for (const auto& line : refused) {
        EXPECT_THAT(line, testing::HasSubstr(": does not select: ")) << pcie.process.out;
    }
}

// Every name in `text` that `pattern` captures (group 1).
std::set<std::string> names_in(const std::string& text, const std::regex& pattern) {
    std::set<std::string> names;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
         it != std::sregex_iterator();
         ++it) {
        names.insert((*it)[1].str());
    }
    return names;
}

// Whether a row of a table on `page` names `name` (in backquotes).
bool in_a_table(const std::string& page, const std::string& name) {
    for (const auto line : util::split_lines(page)) {
        if (line.starts_with("| ") && line.find("`" + name + "`") != std::string_view::npos) {
            return true;
        }
    }
    return false;
}

TEST(ExportDocs, TheTablesNameEveryLabelAndFamilyWritten) {
    const auto page = util::read_file(kExportPage).value_or("");
    const ScratchDir scratch;
    const auto bench = bench_of(scratch, fixture_machine("bench-nvlink-2x"));
    std::string nfd;
    std::string prom;
    for (const auto& machine : {std::string("hgx-b200-8x"),
                                std::string("pcie-rtx6000ada-2x-iommu"),
                                fixture_machine("nvlink-errors-8x"),
                                fixture_machine("gdr-acs-4x"),
                                fixture_machine("pcie-aer-4x")}) {
        nfd +=
            run_peergate({"--simulate", machine, "export", "nfd", "--nfd-timestamp"}).process.out;
        prom += run_peergate({"--simulate", machine, "export", "prometheus"}).process.out;
    }
    for (const auto& args :
         {std::vector<std::string>{"--probe"}, std::vector<std::string>{"--bandwidth", bench}}) {
        const auto& machine = args[0] == "--probe" ? std::string("pcie-rtx6000ada-2x-iommu")
                                                   : fixture_machine("bench-nvlink-2x");
        for (const char* format : {"nfd", "prometheus"}) {
            std::vector<std::string> argv = {"--simulate", machine, "export", format};
            argv.insert(argv.end(), args.begin(), args.end());
            (std::string(format) == "nfd" ? nfd : prom) += run_peergate(argv).process.out;
        }
    }
    const auto labels =
        names_in(nfd, std::regex("peergate\\.feature\\.node\\.kubernetes\\.io/([^=\n]+)="));
    const auto families = names_in(prom, std::regex("# TYPE (peergate_[a-z0-9_]+) "));
    EXPECT_GE(labels.size(), 18U);
    EXPECT_GE(families.size(), 35U);
    for (const auto& name : labels) {
        EXPECT_TRUE(in_a_table(page, name)) << "NFD label " << name;
    }
    for (const auto& name : families) {
        EXPECT_TRUE(in_a_table(page, name)) << "family " << name;
    }
}

// The atomic writer never writes through a symbolic link (docs/security.md), and the page says
// so: an --output that is a link is refused, and the file it names is left as it was.
TEST(ExportDocs, ALinkAtTheOutputIsRefusedAsThePageSays) {
    const ScratchDir scratch;
    const auto target = scratch.file("elsewhere");
    ASSERT_TRUE(util::write_file_atomically(target, "kept\n").has_value());
    const auto link = scratch.file("peergate.prom");
    std::filesystem::create_symlink(target, link);
    const auto run =
        run_peergate({"--simulate", "single-h200", "export", "prometheus", "--output", link});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("symbolic link"));
    EXPECT_EQ(util::read_file(target).value_or(""), "kept\n");
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    const auto page = util::read_file(kExportPage).value_or("");
    EXPECT_THAT(page, testing::Not(testing::HasSubstr("A symbolic link at the path is followed")));
    EXPECT_THAT(page, testing::HasSubstr("symbolic link at the path is refused"));
}

}  // namespace
}  // namespace peergate::test
