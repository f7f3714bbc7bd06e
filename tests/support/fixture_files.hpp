// SPDX-License-Identifier: Apache-2.0
// Reading test fixtures by kind and name, and listing a kind's files.
#pragma once

#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::test {

// Absolute path of tests/fixtures/<kind>/<name>.
inline std::string fixture_path(const std::string& kind, const std::string& name) {
    return std::string(PEERGATE_TEST_FIXTURES) + "/" + kind + "/" + name;
}

// The bytes of a fixture; fails the current test (and returns "") when it cannot be read.
inline std::string read_fixture(const std::string& kind, const std::string& name) {
    auto text = util::read_file(fixture_path(kind, name));
    EXPECT_TRUE(text.has_value()) << (text ? "" : text.error().message);
    return text ? *text : std::string();
}

// File names (not paths) under tests/fixtures/<kind>, sorted.
inline std::vector<std::string> fixture_names(const std::string& kind) {
    std::vector<std::string> names;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PEERGATE_TEST_FIXTURES) + "/" + kind)) {
        if (entry.is_regular_file()) {
            names.push_back(entry.path().filename().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

// File names under tests/fixtures/<kind> that end with `suffix` (".txt", ".log"), sorted.
inline std::vector<std::string> fixture_names(const std::string& kind, std::string_view suffix) {
    std::vector<std::string> names;
    for (auto& name : fixture_names(kind)) {
        if (name.ends_with(suffix)) {
            names.push_back(std::move(name));
        }
    }
    return names;
}

// The lines of `text`, without their ends.
inline std::vector<std::string> lines_of(std::string_view text) {
    std::vector<std::string> lines;
    for (const auto line : util::split_lines(text)) {
        lines.emplace_back(line);
    }
    return lines;
}

// A parameterised test's name from its fixture file: the first 40 characters, each one that
// gtest refuses written '_', then the index (two files may share a prefix).
inline std::string fixture_test_name(const std::string& file, std::size_t index) {
    std::string name = file.substr(0, 40);
    for (auto& c : name) {
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    }
    return name + "_" + std::to_string(index);
}

}  // namespace peergate::test
