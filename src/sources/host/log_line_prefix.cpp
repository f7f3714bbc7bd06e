// SPDX-License-Identifier: Apache-2.0
#include "sources/host/log_line_prefix.hpp"

#include <array>
#include <cstddef>

namespace peergate::sources::host {

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_space(char c) {
    return c == ' ' || c == '\t';
}

std::string_view skip_spaces(std::string_view text) {
    while (!text.empty() && is_space(text.front())) {
        text.remove_prefix(1);
    }
    return text;
}

// The first word (up to a space) and what follows it, spaces skipped.
std::pair<std::string_view, std::string_view> first_word(std::string_view text) {
    std::size_t end = 0;
    while (end < text.size() && !is_space(text[end])) {
        ++end;
    }
    return {text.substr(0, end), skip_spaces(text.substr(end))};
}

bool all_digits(std::string_view text) {
    if (text.empty()) {
        return false;
    }
    for (char c : text) {
        if (!is_digit(c)) {
            return false;
        }
    }
    return true;
}

// "12:00:00", "12:00:00.123456", "12:00" (dmesg -H).
bool is_clock(std::string_view word) {
    if (word.size() < 5 || !is_digit(word[0]) || !is_digit(word[1]) || word[2] != ':' ||
        !is_digit(word[3]) || !is_digit(word[4])) {
        return false;
    }
    return word.size() == 5 ||
           (word[5] == ':' && word.size() >= 8 && is_digit(word[6]) && is_digit(word[7]) &&
            (word.size() == 8 || word[8] == '.' || word[8] == ',' || word[8] == '+' ||
             word[8] == '-' || word[8] == 'Z'));
}

// "2026-12-01T12:00:00+0000", "2026-12-01T12:00:00.123456789Z": an RFC 3339 time.
bool is_iso_time(std::string_view word) {
    return word.size() >= 19 && all_digits(word.substr(0, 4)) && word[4] == '-' &&
           all_digits(word.substr(5, 2)) && word[7] == '-' && all_digits(word.substr(8, 2)) &&
           word[10] == 'T' && is_clock(word.substr(11));
}

// What a bracket at the start holds when dmesg or printk put it there: a time
// ("12.345678"), a delta ("+0.000316", "<    0.000316>"), both, a date ("Tue Dec  1
// 12:00:00 2026", "Dec 1 12:00"), a caller ("T291", "C0") or an RFC 3339 time (talosctl).
bool is_dmesg_bracket(std::string_view inside) {
    inside = skip_spaces(inside);
    if (inside.empty()) {
        return false;
    }
    if (inside.front() == '+' || inside.front() == '<') {
        return inside.size() > 1 && (is_digit(skip_spaces(inside.substr(1)).front()));
    }
    if ((inside.front() == 'T' || inside.front() == 'C') && all_digits(inside.substr(1))) {
        return true;
    }
    if (is_iso_time(inside)) {
        return true;
    }
    if (is_digit(inside.front())) {
        const auto [number, rest] = first_word(inside);
        const auto dot = number.find('.');
        return dot != std::string_view::npos && all_digits(number.substr(0, dot)) &&
               all_digits(number.substr(dot + 1)) && (rest.empty() || rest.front() == '<');
    }
    // A date: some word holds a clock.
    for (std::string_view rest = inside; !rest.empty();) {
        const auto [word, after] = first_word(rest);
        if (is_clock(word)) {
            return true;
        }
        rest = after;
    }
    return false;
}

std::string_view strip_quote(std::string_view text) {
    while (!text.empty() && text.front() == '>') {
        text = skip_spaces(text.substr(1));
    }
    return text;
}

// After a timestamp: "host kernel: ", "kernel: " (no host), "host prog[pid]: ". A message
// such as "pcieport 0000:00:03.0: ..." is neither, and stays.
std::string_view strip_host_and_program(std::string_view text) {
    const auto [first, after_first] = first_word(text);
    if (first == "kernel:") {
        return after_first;
    }
    const auto [second, after_second] = first_word(after_first);
    if (!first.empty() && (second == "kernel:" || (second.ends_with("]:") &&
                                                   second.find('[') != std::string_view::npos))) {
        return after_second;
    }
    return text;
}

// journalctl's short-monotonic puts "host kernel: " after its "[   12.345678]".
std::string_view strip_host_kernel(std::string_view text) {
    const auto [first, after_first] = first_word(text);
    const auto [second, after_second] = first_word(after_first);
    return !first.empty() && second == "kernel:" ? after_second : text;
}

// "[   12.345678] " and the like; "[pod/name/container] " (kubectl logs --prefix).
std::string_view strip_bracket(std::string_view text) {
    if (text.empty() || text.front() != '[') {
        return text;
    }
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
        return text;
    }
    const std::string_view inside = text.substr(1, close - 1);
    const bool kubectl = inside.starts_with("pod/") && inside.find(' ') == std::string_view::npos;
    if (!kubectl && !is_dmesg_bracket(inside)) {
        return text;
    }
    std::string_view rest = text.substr(close + 1);
    if (rest.starts_with(':')) {
        rest.remove_prefix(1);  // talosctl: "[2026-12-01T12:00:00.1Z]: "
    }
    return kubectl ? skip_spaces(rest) : strip_host_kernel(skip_spaces(rest));
}

// "Dec  1 12:00:00 ", "jan. 05 12:00:00.123456 " (short, short-precise, localised):
// a month word, a day, a clock. Then the host and the program.
std::string_view strip_syslog_time(std::string_view text) {
    const auto [month, after_month] = first_word(text);
    const auto [day, after_day] = first_word(after_month);
    const auto [clock, after_clock] = first_word(after_day);
    if (month.empty() || is_digit(month.front()) || month.size() > 12 || !all_digits(day) ||
        day.size() > 2 || !is_clock(clock)) {
        return text;
    }
    return strip_host_and_program(after_clock);
}

// "2026-12-01T12:00:00+0000 host kernel: " (short-iso, rsyslog) or "...Z " (kubectl
// --timestamps, which has no host after it).
std::string_view strip_iso_time(std::string_view text) {
    const auto [word, rest] = first_word(text);
    if (!is_iso_time(word)) {
        return text;
    }
    return strip_host_and_program(rest);
}

constexpr std::array<std::string_view, 13> kFacilities{"kern",
                                                       "user",
                                                       "mail",
                                                       "daemon",
                                                       "auth",
                                                       "syslog",
                                                       "lpr",
                                                       "news",
                                                       "uucp",
                                                       "cron",
                                                       "authpriv",
                                                       "ftp",
                                                       "local0"};
constexpr std::array<std::string_view, 8> kLevels{
    "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};

template <std::size_t N>
bool one_of(std::string_view word, const std::array<std::string_view, N>& words) {
    for (auto known : words) {
        if (word == known) {
            return true;
        }
    }
    return false;
}

// "kern  :err   : " (dmesg --decode), "kern:    info: " (talosctl), after an optional
// node address ("172.20.0.2: ").
std::string_view strip_facility_level(std::string_view text) {
    std::string_view rest = text;
    const auto [node, after_node] = first_word(rest);
    if (node.size() > 1 && node.back() == ':' && is_digit(node.front())) {
        rest = after_node;
    }
    const auto colon = rest.find(':');
    if (colon == std::string_view::npos ||
        !one_of(first_word(rest.substr(0, colon)).first, kFacilities)) {
        return text;
    }
    std::string_view after = skip_spaces(rest.substr(colon + 1));
    const auto level_end = after.find(':');
    if (level_end == std::string_view::npos ||
        !one_of(first_word(after.substr(0, level_end)).first, kLevels)) {
        return text;
    }
    return skip_spaces(after.substr(level_end + 1));
}

// A bare "kernel: " where a paste cut the time and host off, or after dmesg's time
// ("[    0.938401] kernel: ", as some log shippers write it).
std::string_view strip_bare_kernel(std::string_view text) {
    constexpr std::string_view kKernel = "kernel: ";
    return text.starts_with(kKernel) ? text.substr(kKernel.size()) : text;
}

std::string_view strip_once(std::string_view text) {
    text = strip_quote(text);
    text = strip_bare_kernel(text);
    text = strip_bracket(text);
    text = strip_iso_time(text);
    text = strip_facility_level(text);
    text = strip_syslog_time(text);
    return skip_spaces(text);
}

}  // namespace

std::string_view strip_log_line_prefix(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || is_space(line.back()))) {
        line.remove_suffix(1);
    }
    line = skip_spaces(line);
    // Each pass takes off one layer ("> ", the journal's time and host, dmesg's time, the
    // caller id ...); a line holds a few at most.
    for (int pass = 0; pass < 8; ++pass) {
        const std::string_view next = strip_once(line);
        if (next.size() == line.size()) {
            break;
        }
        line = next;
    }
    return line;
}

}  // namespace peergate::sources::host
