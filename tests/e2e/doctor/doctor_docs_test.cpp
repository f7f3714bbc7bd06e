// SPDX-License-Identifier: Apache-2.0
// docs/doctor.md lists every finding code the doctor gives: scripts and alerting rules key on
// them, so a code added to src/policy without a line in the page fails here.
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>

namespace peergate::test {
namespace {

const std::string kSource = PEERGATE_SOURCE_DIR;

// The quoted snake_case names on the lines that set a finding's code.
std::set<std::string> codes_in(const std::string& text) {
    std::set<std::string> codes;
    const std::regex code_line(R"(\.code = [^\n]*)");
    const std::regex name("\"([a-z0-9]+(_[a-z0-9]+)+)\"");
    for (auto line = std::sregex_iterator(text.begin(), text.end(), code_line);
         line != std::sregex_iterator();
         ++line) {
        const std::string found = line->str();
        for (auto it = std::sregex_iterator(found.begin(), found.end(), name);
             it != std::sregex_iterator();
             ++it) {
            codes.insert((*it)[1].str());
        }
    }
    return codes;
}

TEST(DoctorDocs, EveryFindingCodeIsListed) {
    const auto page = util::read_file(kSource + "/docs/doctor.md");
    ASSERT_TRUE(page.has_value());
    std::set<std::string> codes;
    for (const auto& entry : std::filesystem::directory_iterator(kSource + "/src/policy/doctor")) {
        const std::string file = entry.path().filename().string();
        if (file.ends_with(".cpp")) {
            const auto text = util::read_file(entry.path().string());
            ASSERT_TRUE(text.has_value()) << file;
            const auto found = codes_in(*text);
            codes.insert(found.begin(), found.end());
        }
    }
    EXPECT_GE(codes.size(), 15U);  // the scan itself still finds them
    for (const auto& code : codes) {
        EXPECT_NE(page->find("`" + code + "`"), std::string::npos)
            << code << " is not in docs/doctor.md";
    }
    EXPECT_NE(page->find("`xid_<n>`"), std::string::npos);  // built with fmt::format
}

}  // namespace
}  // namespace peergate::test
