// SPDX-License-Identifier: Apache-2.0
#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace peergate::util {
namespace {

using Views = std::vector<std::string_view>;

TEST(Strings, TrimRemovesSpacesTabsCrAndLfAtBothEndsOnly) {
    EXPECT_EQ(trim("  \t a b \r\n"), "a b");
    EXPECT_EQ(trim(""), "");
    EXPECT_EQ(trim(" \t\r\n"), "");
    EXPECT_EQ(trim("x"), "x");
}

TEST(Strings, SplitLinesDropsOneCrPerLineAndTheFinalEmptyLine) {
    EXPECT_EQ(split_lines("a\nb\n"), (Views{"a", "b"}));
    EXPECT_EQ(split_lines("a\r\nb\r\n"), (Views{"a", "b"}));
    EXPECT_EQ(split_lines("a\n\nb"), (Views{"a", "", "b"}));
    EXPECT_EQ(split_lines("a\r\r\n"), (Views{"a\r"}));
    EXPECT_TRUE(split_lines("").empty());
    EXPECT_EQ(split_lines("\n"), (Views{""}));
}

TEST(Strings, SplitWhitespaceTreatsRunsOfTabsAndSpacesAsOneSeparator) {
    EXPECT_EQ(split_whitespace("\tGPU0 \t GPU1\t\tCPU Affinity  "),
              (Views{"GPU0", "GPU1", "CPU", "Affinity"}));
    EXPECT_TRUE(split_whitespace(" \t ").empty());
    EXPECT_TRUE(split_whitespace("").empty());
}

TEST(Strings, SplitKeepsEmptyFields) {
    EXPECT_EQ(split("a,,b", ','), (Views{"a", "", "b"}));
    EXPECT_EQ(split("", ','), (Views{""}));
    EXPECT_EQ(split(",", ','), (Views{"", ""}));
}

TEST(Strings, StripAnsiRemovesCsiSequencesOnly) {
    EXPECT_EQ(strip_ansi("\t\x1b[4mGPU0\tGPU1\x1b[0m"), "\tGPU0\tGPU1");
    EXPECT_EQ(strip_ansi("\x1b[1;32mNV18\x1b[m X"), "NV18 X");
    EXPECT_EQ(strip_ansi("plain"), "plain");
    EXPECT_EQ(strip_ansi("a\x1b"), "a\x1b") << "a lone ESC is not a sequence";
    EXPECT_EQ(strip_ansi("a\x1b[12"), "a")
        << "an unterminated sequence is dropped, never read past";
    EXPECT_EQ(strip_ansi("\x1bXa"), "\x1bXa");
}

TEST(Strings, ContainsWordMatchesWholeWordsCaseInsensitively) {
    struct Case {
        std::string_view haystack;
        std::string_view needle;
        bool found;
    };

    const std::vector<Case> cases{
        {"NVIDIA A100-SXM4-80GB", "a100", true},
        {"NVIDIA RTX A1000 Laptop GPU", "a100", false},
        {"NVIDIA L4", "l4", true},
        {"NVIDIA L40", "l4", false},
        {"NVIDIA L40S", "l40", false},
        {"NVIDIA L40S", "L40S", true},
        {"NVIDIA H100 80GB HBM3", "h100", true},
        {"NVIDIA GH100", "h100", false},
        {"B200", "b200", true},
        {"", "b200", false},
        {"b200", "", false},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(contains_word(c.haystack, c.needle), c.found) << c.haystack << " / " << c.needle;
    }
}

TEST(Strings, ParseIntAndHexAcceptOnlyWholeNumbers) {
    EXPECT_EQ(parse_int<int>("42"), 42);
    EXPECT_EQ(parse_int<int>("-3"), -3);
    EXPECT_FALSE(parse_int<int>("").has_value());
    EXPECT_FALSE(parse_int<int>("4x").has_value());
    EXPECT_FALSE(parse_int<int>(" 4").has_value());
    EXPECT_FALSE(parse_int<std::uint8_t>("256").has_value());
    EXPECT_EQ(parse_hex<unsigned>("1B"), 0x1BU);
    EXPECT_EQ(parse_hex<unsigned>("1b"), 0x1BU);
    EXPECT_FALSE(parse_hex<unsigned>("0x1b").has_value());
    EXPECT_FALSE(parse_hex<unsigned>("").has_value());
}

TEST(Strings, JoinAndToLower) {
    EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
    EXPECT_EQ(join({}, ","), "");
    EXPECT_EQ(to_lower("NVIDIA B200"), "nvidia b200");
}

}  // namespace
}  // namespace peergate::util
