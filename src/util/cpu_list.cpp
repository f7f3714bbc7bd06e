// SPDX-License-Identifier: Apache-2.0
#include "util/cpu_list.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace peergate::util {

namespace {

std::optional<std::pair<int, int>> parse_range(std::string_view part) {
    const auto dash = part.find('-');
    const auto lo = parse_int<int>(trim(part.substr(0, dash)));
    const auto hi =
        dash == std::string_view::npos ? lo : parse_int<int>(trim(part.substr(dash + 1)));
    if (!lo || !hi || *lo < 0 || *hi < *lo) {
        return std::nullopt;
    }
    return std::make_pair(*lo, *hi);
}

}  // namespace

std::optional<std::vector<std::pair<int, int>>> parse_cpu_ranges(std::string_view list) {
    if (trim(list).empty()) {
        return std::nullopt;
    }
    std::vector<std::pair<int, int>> ranges;
    for (auto part : split(list, ',')) {
        const auto range = parse_range(part);
        if (!range) {
            return std::nullopt;
        }
        ranges.push_back(*range);
    }
    return ranges;
}

std::string format_cpu_ranges(std::vector<std::pair<int, int>> ranges) {
    std::sort(ranges.begin(), ranges.end());
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < ranges.size();) {
        auto [lo, hi] = ranges[i];
        for (++i; i < ranges.size() && ranges[i].first <= hi + 1; ++i) {
            hi = std::max(hi, ranges[i].second);
        }
        parts.push_back(lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi));
    }
    return join(parts, ",");
}

std::string format_cpu_list(const std::vector<int>& numbers) {
    std::vector<std::pair<int, int>> ranges;
    for (int n : numbers) {
        ranges.emplace_back(n, n);
    }
    return format_cpu_ranges(std::move(ranges));
}

std::optional<std::string> cpu_mask_text(std::string_view list) {
    // Far above any kernel's NR_CPUS (8192): a larger number is a typo, not a CPU.
    constexpr int kHighestCpu = 65535;
    const auto ranges = parse_cpu_ranges(list);
    if (!ranges) {
        return std::nullopt;
    }
    int highest = 0;
    for (const auto& [lo, hi] : *ranges) {
        highest = std::max(highest, hi);
    }
    if (highest > kHighestCpu) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> words(static_cast<std::size_t>(highest / 32 + 1), 0);
    for (const auto& [lo, hi] : *ranges) {
        for (int cpu = lo; cpu <= hi; ++cpu) {
            words[static_cast<std::size_t>(cpu / 32)] |= 1U << static_cast<unsigned>(cpu % 32);
        }
    }
    std::vector<std::string> hex;
    for (auto word = words.rbegin(); word != words.rend(); ++word) {
        hex.push_back(fmt::format("{:08x}", *word));
    }
    return join(hex, ",");
}

}  // namespace peergate::util
