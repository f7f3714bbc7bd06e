// SPDX-License-Identifier: Apache-2.0
// The text format's rules that a reader can check line by line (docs/ecosystem.md §2.1, §2.2),
// for the Prometheus renderer's tests.
#pragma once

#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

namespace peergate::test {

// Every rule the format states that a reader can check line by line.
inline void expect_well_formed(const std::string& text) {
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n') << "the last line must end in a newline";
    const std::regex name_re("[a-zA-Z_][a-zA-Z0-9_]*");
    const std::regex sample_re(
        R"(([a-zA-Z_][a-zA-Z0-9_]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? [^ ]+)");
    std::map<std::string, std::string> types;
    std::set<std::string> finished;  // families whose lines have ended
    std::set<std::string> series;
    std::string current;
    for (const auto line : util::split_lines(text)) {
        const std::string s(line);
        std::smatch m;
        if (s.starts_with("# HELP ") || s.starts_with("# TYPE ")) {
            const auto words = util::split_whitespace(s);
            ASSERT_GE(words.size(), 4U) << s;
            const std::string name(words[2]);
            if (name != current) {
                EXPECT_EQ(finished.count(name), 0U) << name << " is split into two groups";
                finished.insert(current);
                current = name;
            }
            if (s.starts_with("# TYPE ")) {
                EXPECT_EQ(types.count(name), 0U) << "second TYPE for " << name;
                types[name] = std::string(words[3]);
            }
            continue;
        }
        ASSERT_TRUE(std::regex_match(s, m, sample_re)) << "not a sample without a timestamp: " << s;
        EXPECT_EQ(m[1].str(), current) << "sample outside its family: " << s;
        EXPECT_TRUE(std::regex_match(m[1].str(), name_re));
        EXPECT_TRUE(series.insert(s.substr(0, s.rfind(' '))).second) << "duplicate series " << s;
        const bool total = m[1].str().ends_with("_total");
        EXPECT_EQ(total, types[current] == "counter") << "_total is for counters only: " << s;
        EXPECT_TRUE(m[1].str().starts_with("peergate_"));
    }
}

}  // namespace peergate::test
