// SPDX-License-Identifier: Apache-2.0
// Checks for numeric options whose error names the value and the range. CLI11's
// PositiveNumber and NonNegativeNumber print their upper bound, the largest double, as a
// 309-digit number.
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace peergate::cli {

// A whole number from `lo` to `hi`: "--size: 0 is not a whole number from 1 to 4096".
inline CLI::Validator whole_number(std::int64_t lo, std::int64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            std::int64_t value = 0;
            const bool read = CLI::detail::lexical_cast(text, value);
            if (read && value >= lo && value <= hi) {
                return {};
            }
            return fmt::format("{} is not a whole number from {} to {}", text, lo, hi);
        },
        fmt::format("{}..{}", lo, hi));
}

// A finite number of seconds from `lo` to `hi`, checked before it becomes a duration (a NaN
// or a 1e300 cast to an integer count is undefined): "--soak: -1 is not a number of seconds
// from 0 to 604800".
inline CLI::Validator seconds_from(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) -> std::string {
            double value = 0.0;
            const bool read = CLI::detail::lexical_cast(text, value);
            if (read && value >= lo && value <= hi) {  // false for NaN
                return {};
            }
            return fmt::format("{} is not a number of seconds from {} to {}", text, lo, hi);
        },
        fmt::format("SECONDS {}..{}", lo, hi));
}

// --soak for a command whose --probe runs the probe: only with it.
inline void add_soak_option(CLI::App* sub, double& soak_s, CLI::Option* probe) {
    sub->add_option("--soak",
                    soak_s,
                    "with --probe: sweep again, with fresh patterns, until SECONDS have passed "
                    "(a burn-in, as 'peergate probe --soak')")
        ->check(seconds_from(0.0, 604800.0))
        ->needs(probe);
}

}  // namespace peergate::cli
