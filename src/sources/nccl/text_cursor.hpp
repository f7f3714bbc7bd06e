// SPDX-License-Identifier: Apache-2.0
// A forward-only reader over one line of text, for the NCCL record readers. It never
// allocates and never reads past the end; every method leaves the cursor unmoved on a miss.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace peergate::sources::nccl {

// Whether `text` begins with `prefix`, compared in line: the strings here are a few bytes
// long, and a call to memcmp per keyword cost more than the compare itself.
inline bool starts_with_text(std::string_view text, std::string_view prefix) {
    if (text.size() < prefix.size()) {
        return false;
    }
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (text[i] != prefix[i]) {
            return false;
        }
    }
    return true;
}

inline bool same_text(std::string_view a, std::string_view b) {
    return a.size() == b.size() && starts_with_text(a, b);
}

inline std::string_view trim_view(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

class TextCursor {
public:
    explicit TextCursor(std::string_view text) : text_(text) {}

    std::string_view rest() const { return text_.substr(pos_); }

    std::size_t position() const { return pos_; }

    bool done() const { return pos_ >= text_.size(); }

    void skip_spaces() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
            ++pos_;
        }
    }

    bool consume(std::string_view expected) {
        if (pos_ > text_.size() || !starts_with_text(text_.substr(pos_), expected)) {
            return false;
        }
        pos_ += expected.size();
        return true;
    }

    // A decimal integer, optionally negative; nullopt (cursor unmoved) when none or too long.
    std::optional<int> integer() {
        std::size_t at = pos_;
        const bool negative = at < text_.size() && text_[at] == '-';
        at += negative ? 1 : 0;
        const std::size_t digits_start = at;
        long long value = 0;
        while (at < text_.size() && text_[at] >= '0' && text_[at] <= '9' && at - digits_start < 9) {
            value = value * 10 + (text_[at] - '0');
            ++at;
        }
        if (at == digits_start || (at < text_.size() && text_[at] >= '0' && text_[at] <= '9')) {
            return std::nullopt;
        }
        pos_ = at;
        return static_cast<int>(negative ? -value : value);
    }

    // Text up to (not including) `stop` or the end. A plain loop: the stop is a few bytes
    // away, closer than a call to memchr pays off.
    std::string_view until(char stop) {
        std::size_t stop_at = pos_;
        while (stop_at < text_.size() && text_[stop_at] != stop) {
            ++stop_at;
        }
        const std::string_view out = text_.substr(pos_, stop_at - pos_);
        pos_ = stop_at;
        return out;
    }

    // The next run of non-space characters (after skipping spaces).
    std::string_view word() {
        skip_spaces();
        std::size_t end = pos_;
        while (end < text_.size() && text_[end] != ' ' && text_[end] != '\t') {
            ++end;
        }
        const std::string_view out = text_.substr(pos_, end - pos_);
        pos_ = end;
        return out;
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace peergate::sources::nccl
