// SPDX-License-Identifier: Apache-2.0
// A C++20 stand-in for std::expected<T, Error> (GCC 12 has it only in C++23).
// Member names match std::expected so a later move is a one-line alias.
#pragma once

#include "util/error.hpp"

#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace peergate::util {

// Wraps an error so that `return unexpected(...)` converts to any Expected<T>.
struct Unexpected {
    Error error;
};

inline Unexpected unexpected(Error error) {
    return Unexpected{std::move(error)};
}

inline Unexpected unexpected(ErrorCode code, std::string message) {
    return Unexpected{Error{code, std::move(message)}};
}

[[noreturn]] void expected_bad_access(const Error& error);

template <typename T>
class [[nodiscard]] Expected {
public:
    using value_type = T;

    Expected() requires std::is_default_constructible_v<T> : state_(std::in_place_index<0>) {}

    Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit

    Expected(Unexpected u) : state_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT

    bool has_value() const noexcept { return state_.index() == 0; }

    explicit operator bool() const noexcept { return has_value(); }

    T& value() & {
        check();
        return std::get<0>(state_);
    }

    const T& value() const& {
        check();
        return std::get<0>(state_);
    }

    T&& value() && {
        check();
        return std::get<0>(std::move(state_));
    }

    const Error& error() const& { return std::get<1>(state_); }

    Error&& error() && { return std::get<1>(std::move(state_)); }

    T& operator*() & { return value(); }

    const T& operator*() const& { return value(); }

    T&& operator*() && { return std::move(*this).value(); }

    T* operator->() { return &value(); }

    const T* operator->() const { return &value(); }

    template <typename U>
    T value_or(U&& fallback) const& {
        return has_value() ? std::get<0>(state_) : static_cast<T>(std::forward<U>(fallback));
    }

private:
    void check() const {
        if (!has_value()) {
            expected_bad_access(std::get<1>(state_));
        }
    }

    std::variant<T, Error> state_;
};

// Expected<void>: success carries nothing.
template <>
class [[nodiscard]] Expected<void> {
public:
    using value_type = void;

    Expected() = default;

    Expected(Unexpected u) : error_(std::move(u.error)), ok_(false) {}  // NOLINT: implicit

    bool has_value() const noexcept { return ok_; }

    explicit operator bool() const noexcept { return ok_; }

    void value() const {
        if (!ok_) {
            expected_bad_access(error_);
        }
    }

    const Error& error() const& { return error_; }

    Error&& error() && { return std::move(error_); }

private:
    Error error_;
    bool ok_ = true;
};

}  // namespace peergate::util

// Propagates the error of an Expected expression from the enclosing function.
#define PEERGATE_TRY(expr)                                                                \
    do {                                                                                  \
        if (auto peergate_try_result_ = (expr); !peergate_try_result_) {                  \
            return ::peergate::util::unexpected(std::move(peergate_try_result_).error()); \
        }                                                                                 \
    } while (false)
