// SPDX-License-Identifier: Apache-2.0
// The counter series of a Prometheus textfile, for tests that run export more than once and
// check that no counter falls between runs on one boot (issue 52): a fall reads to Prometheus
// as a reset, and increase() then counts the whole value again.
#pragma once

#include "util/strings.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::test {

// Each sample of each family the text types `counter`: the series (name and labels, as
// written) -> its value.
inline std::map<std::string, double> counter_series(const std::string& text) {
    std::set<std::string, std::less<>> counters;
    constexpr std::string_view kType = "# TYPE ";
    for (const auto line : util::split_lines(text)) {
        if (line.starts_with(kType) && line.ends_with(" counter")) {
            const auto name = line.substr(kType.size());
            counters.emplace(name.substr(0, name.find(' ')));
        }
    }
    std::map<std::string, double> out;
    for (const auto line : util::split_lines(text)) {
        const auto name_end = line.find_first_of("{ ");
        const auto value_at = line.rfind(' ');
        if (line.starts_with('#') || name_end == std::string_view::npos ||
            !counters.contains(line.substr(0, name_end))) {
            continue;
        }
        out[std::string(line.substr(0, value_at))] =
            std::stod(std::string(line.substr(value_at + 1)));
    }
    return out;
}

// Adds `text`'s counter series to `last` (each series' latest value), and returns each that
// fell below the value it last had, as "series: before -> now".
inline std::vector<std::string> counters_that_fell(const std::string& text,
                                                   std::map<std::string, double>& last) {
    std::vector<std::string> fell;
    for (const auto& [series, value] : counter_series(text)) {
        const auto before = last.find(series);
        if (before != last.end() && value < before->second) {
            fell.push_back(series + ": " + std::to_string(before->second) + " -> " +
                           std::to_string(value));
        }
        last[series] = value;
    }
    return fell;
}

}  // namespace peergate::test
