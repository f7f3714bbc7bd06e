// SPDX-License-Identifier: Apache-2.0
// Reading JSON that a person may have written or edited (machine files, bench and probe
// results, fleet lines), where nlohmann's shortcuts misbehave: get<int>() converts whatever
// number it finds, and a float out of the target's range (3e49 into an int) is undefined
// behaviour; value("key", "") throws when the key holds another type. These helpers take a
// value only when it has the type and fits, and say so when it does not.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace peergate::util {

// An integer that `Int` holds exactly; nullopt for a float, a non-number or one out of range.
template <std::integral Int>
std::optional<Int> json_integer(const nlohmann::json& value) {
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        return std::in_range<Int>(u) ? std::optional<Int>(static_cast<Int>(u)) : std::nullopt;
    }
    if (value.is_number_integer()) {
        const auto i = value.get<std::int64_t>();
        return std::in_range<Int>(i) ? std::optional<Int>(static_cast<Int>(i)) : std::nullopt;
    }
    return std::nullopt;
}

// Whether j is an object whose `key` is the string `expected` (false for any other type,
// where j.value(key, "") would throw).
inline bool json_string_is(const nlohmann::json& j, const char* key, std::string_view expected) {
    if (!j.is_object()) {
        return false;
    }
    const auto it = j.find(key);
    return it != j.end() && it->is_string() && it->get_ref<const std::string&>() == expected;
}

// A finite number (integers included); nullopt otherwise.
inline std::optional<double> json_finite(const nlohmann::json& value) {
    if (!value.is_number()) {
        return std::nullopt;
    }
    const auto d = value.get<double>();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

// Thrown by the *_at readers below; a nlohmann::json::exception, so the readers that already
// catch those (and turn them into "unreadable") need no second catch.
class JsonNumberError : public nlohmann::json::exception {
public:
    explicit JsonNumberError(const std::string& what) : exception(0, what.c_str()) {}
};

// j.at(key) as an `Int`; throws nlohmann's out_of_range when absent, JsonNumberError when
// it is not an integer that fits.
template <std::integral Int>
Int json_integer_at(const nlohmann::json& j, const char* key) {
    if (const auto value = json_integer<Int>(j.at(key))) {
        return *value;
    }
    throw JsonNumberError(std::string("\"") + key + "\" is not an integer in range");
}

inline double json_finite_at(const nlohmann::json& j, const char* key) {
    if (const auto value = json_finite(j.at(key))) {
        return *value;
    }
    throw JsonNumberError(std::string("\"") + key + "\" is not a finite number");
}

}  // namespace peergate::util
