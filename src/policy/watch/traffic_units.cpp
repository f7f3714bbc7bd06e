// SPDX-License-Identifier: Apache-2.0
#include "policy/watch/traffic_units.hpp"

#include <fmt/format.h>

#include <array>

namespace peergate::policy::watch {

namespace {

std::string scaled(double value, const char* suffix) {
    static constexpr std::array<const char*, 5> kUnits{"", "k", "M", "G", "T"};
    std::size_t unit = 0;
    while (value >= 1000.0 && unit + 1 < kUnits.size()) {
        value /= 1000.0;
        ++unit;
    }
    if (unit == 0) {
        return fmt::format("{:.0f} B{}", value, suffix);
    }
    return fmt::format("{:.{}f} {}B{}", value, value >= 100.0 ? 0 : 1, kUnits[unit], suffix);
}

}  // namespace

std::string bytes_text(std::uint64_t bytes) {
    return scaled(static_cast<double>(bytes), "");
}

std::string rate_text(double bytes_per_second) {
    return scaled(bytes_per_second < 0.0 ? 0.0 : bytes_per_second, "/s");
}

}  // namespace peergate::policy::watch
