// SPDX-License-Identifier: Apache-2.0
// The man pages and the completion are rendered from the program's own command line
// (cli/docs, docs/packaging.md): every visible command gets a page, every line of a page is
// text or one of the few requests the renderer writes, and no help text can inject a request.
#include "cli/app.hpp"
#include "cli/docs/bash_completion.hpp"
#include "cli/docs/cli_reference.hpp"
#include "cli/docs/man_page.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace peergate::cli::docs {
namespace {

CommandReference program_reference() {
    CLI::App app;
    GlobalOptions options;
    describe_app(app, options);
    return reference_of(app);
}

const CommandReference* find_command(const CommandReference& root, const std::string& name) {
    for (const auto& sub : root.commands) {
        if (sub.path.back() == name) {
            return &sub;
        }
    }
    return nullptr;
}

std::vector<const CommandReference*> every_command(const CommandReference& root) {
    std::vector<const CommandReference*> all{&root};
    for (const auto& sub : root.commands) {
        const auto below = every_command(sub);
        all.insert(all.end(), below.begin(), below.end());
    }
    return all;
}

TEST(CliDocs, EveryVisibleCommandAndNoInternalOne) {
    const auto program = program_reference();
    std::set<std::string> pages;
    for (const auto* command : every_command(program)) {
        pages.insert(command->page_name());
    }
    for (const char* page : {"peergate",
                             "peergate-doctor",
                             "peergate-gate",
                             "peergate-exec",
                             "peergate-watch",
                             "peergate-export",
                             "peergate-fleet",
                             "peergate-fleet-run",
                             "peergate-fleet-health",
                             "peergate-nccl-log"}) {
        EXPECT_TRUE(pages.contains(page)) << page;
    }
    EXPECT_FALSE(pages.contains("peergate-cuda-visible"));  // the gate's internal helper
}

TEST(CliDocs, OptionsCarryTheirValueAndChoices) {
    const auto program = program_reference();
    const auto* exporter = find_command(program, "export");
    ASSERT_NE(exporter, nullptr);
    const auto format = std::find_if(exporter->options.begin(),
                                     exporter->options.end(),
                                     [](const auto& o) { return o.positional == "format"; });
    ASSERT_NE(format, exporter->options.end());
    EXPECT_TRUE(format->required);
    EXPECT_EQ(format->choices,
              (std::vector<std::string>{"prometheus", "nfd", "gres", "dot", "nccl-topo"}));
    const auto json =
        std::find_if(program.options.begin(), program.options.end(), [](const auto& o) {
            return std::find(o.names.begin(), o.names.end(), "--json") != o.names.end();
        });
    ASSERT_NE(json, program.options.end());
    EXPECT_EQ(json->names, (std::vector<std::string>{"-j", "--json"}));
    EXPECT_TRUE(json->value.empty());  // a flag
}

TEST(CliDocs, RoffTextCannotStartARequest) {
    EXPECT_EQ(roff_text(".SH injected\n'br\nplain \\fB"), "\\&.SH injected\n\\&'br\nplain \\efB");
    EXPECT_EQ(roff_text("a.b 'c'"), "a.b 'c'");
}

// Each line is text, or a request the renderer writes: nothing a help text could smuggle in.
TEST(CliDocs, EveryPageIsWellFormedRoff) {
    const auto program = program_reference();
    const std::set<std::string> requests{
        ".TH", ".SH", ".TP", ".PP", ".B", ".I", ".ad", ".nh", ".br"};
    for (const auto* command : every_command(program)) {
        const std::string page = man_page(*command, program, "peergate 0.1.0");
        EXPECT_TRUE(page.starts_with(".TH ")) << command->page_name();
        std::istringstream lines(page);
        for (std::string line; std::getline(lines, line);) {
            if (line.starts_with(".") || line.starts_with("'")) {
                EXPECT_TRUE(requests.contains(line.substr(0, line.find(' '))))
                    << command->page_name() << ": " << line;
            }
        }
    }
}

TEST(CliDocs, CommandPagesDocumentTheirOptionsAndTheGlobalOnes) {
    const auto program = program_reference();
    const auto* doctor = find_command(program, "doctor");
    ASSERT_NE(doctor, nullptr);
    const std::string page = man_page(*doctor, program, "peergate 0.1.0");
    EXPECT_NE(page.find(".SH NAME\npeergate\\-doctor \\- "), std::string::npos);
    EXPECT_NE(page.find("\\fB\\-\\-kernel\\-log\\fR"), std::string::npos);
    EXPECT_NE(page.find(".SH GLOBAL OPTIONS"), std::string::npos);
    EXPECT_NE(page.find("\\fB\\-\\-simulate\\fR"), std::string::npos);
    EXPECT_NE(page.find("Exit status: 0 healthy"), std::string::npos);  // the footer
    EXPECT_NE(page.find("\\fBpeergate\\fR(1)"), std::string::npos);
}

TEST(CliDocs, CompletionKnowsCommandsOptionsAndChoices) {
    const std::string script = bash_completion(program_reference());
    EXPECT_NE(script.find("complete -F _peergate peergate"), std::string::npos);
    EXPECT_NE(script.find("    'fleet') echo node run health merge ;;"), std::string::npos);
    EXPECT_NE(script.find("    'export') echo prometheus nfd gres dot nccl-topo ;;"),
              std::string::npos);
    EXPECT_NE(script.find("    ':--simulate') return 0 ;;"), std::string::npos);
    EXPECT_EQ(script.find("cuda-visible"), std::string::npos);
}

}  // namespace
}  // namespace peergate::cli::docs
