// SPDX-License-Identifier: Apache-2.0
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace peergate::util {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_alnum(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_blank(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && is_blank(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

std::string to_lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        c = lower(c);
    }
    return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        std::string_view line = text.substr(0, newline);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        lines.push_back(line);
        if (newline == std::string_view::npos) {
            break;
        }
        text.remove_prefix(newline + 1);
    }
    return lines;
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) {
            ++i;
        }
        const std::size_t start = i;
        while (i < text.size() && text[i] != ' ' && text[i] != '\t') {
            ++i;
        }
        if (i > start) {
            fields.push_back(text.substr(start, i - start));
        }
    }
    return fields;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
    std::vector<std::string_view> fields;
    while (true) {
        const auto pos = text.find(sep);
        fields.push_back(text.substr(0, pos));
        if (pos == std::string_view::npos) {
            return fields;
        }
        text.remove_prefix(pos + 1);
    }
}

std::string strip_ansi(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        // Copy everything up to the next ESC in one piece: most text has none.
        const auto esc = text.find('\x1b');
        out.append(text.substr(0, esc));
        if (esc == std::string_view::npos) {
            break;
        }
        text.remove_prefix(esc);
        if (text.size() < 2 || text[1] != '[') {
            out.push_back(text.front());  // a lone ESC is not a sequence: keep it
            text.remove_prefix(1);
            continue;
        }
        // CSI: parameters and intermediates, then one final byte in '@'..'~'.
        std::size_t end = 2;
        while (end < text.size() && (text[end] < '@' || text[end] > '~')) {
            ++end;
        }
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i != 0) {
            out.append(sep);
        }
        out.append(parts[i]);
    }
    return out;
}

std::string join_ints(const std::vector<int>& values, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i != 0) {
            out.append(sep);
        }
        out.append(std::to_string(values[i]));
    }
    return out;
}

bool contains_word(std::string_view haystack, std::string_view needle) {
    if (needle.empty() || needle.size() > haystack.size()) {
        return false;
    }
    for (std::size_t pos = 0; pos + needle.size() <= haystack.size(); ++pos) {
        bool match = true;
        for (std::size_t k = 0; k < needle.size() && match; ++k) {
            match = lower(haystack[pos + k]) == lower(needle[k]);
        }
        if (!match) {
            continue;
        }
        const bool left_ok = pos == 0 || !is_alnum(haystack[pos - 1]);
        const std::size_t after = pos + needle.size();
        const bool right_ok = after == haystack.size() || !is_alnum(haystack[after]);
        if (left_ok && right_ok) {
            return true;
        }
    }
    return false;
}

}  // namespace peergate::util
