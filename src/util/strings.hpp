// SPDX-License-Identifier: Apache-2.0
// Small text helpers shared by the parsers. All pure, none allocate more than they return.
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace peergate::util {

// Removes leading and trailing spaces, tabs, CR and LF.
std::string_view trim(std::string_view text);

// ASCII lower-casing; GPU names and tokens are ASCII.
std::string to_lower(std::string_view text);

// Splits on '\n' and drops one trailing '\r' from each line (CRLF pastes). A final
// empty line after the last '\n' is not returned.
std::vector<std::string_view> split_lines(std::string_view text);

// Splits on runs of spaces and tabs; no empty fields.
std::vector<std::string_view> split_whitespace(std::string_view text);

// Splits on every `sep`; empty fields are kept ("a,,b" gives three).
std::vector<std::string_view> split(std::string_view text, char sep);

// Removes ANSI CSI escape sequences (ESC '[' parameters final-letter), as nvidia-smi
// prints around its underlined header.
std::string strip_ansi(std::string_view text);

// Joins `parts` with `sep`.
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Joins decimal integers with `sep`: {0, 1} and "," give "0,1".
std::string join_ints(const std::vector<int>& values, std::string_view sep);

// Parses a whole decimal integer; nullopt on any stray character or overflow.
template <typename Int>
std::optional<Int> parse_int(std::string_view text) {
    Int value{};
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end || text.empty()) {
        return std::nullopt;
    }
    return value;
}

// Parses a whole hexadecimal integer (no 0x prefix); nullopt on anything else.
template <typename Int>
std::optional<Int> parse_hex(std::string_view text) {
    Int value{};
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value, 16);
    if (ec != std::errc{} || ptr != end || text.empty()) {
        return std::nullopt;
    }
    return value;
}

// True when `needle` occurs in `haystack` with no letter or digit on either side,
// compared case-insensitively ("a100" in "A100-SXM4-80GB", not in "RTX A1000").
bool contains_word(std::string_view haystack, std::string_view needle);

}  // namespace peergate::util
