// SPDX-License-Identifier: Apache-2.0
// Reading test fixtures by kind and name, and listing a kind's files.
#pragma once

#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
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

}  // namespace peergate::test
