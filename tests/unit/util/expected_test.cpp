// SPDX-License-Identifier: Apache-2.0
#include "util/expected.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace peergate::util {
namespace {

Expected<int> half(int x) {
    if (x % 2 != 0) {
        return unexpected(ErrorCode::invalid_input, std::to_string(x) + " is odd");
    }
    return x / 2;
}

Expected<int> quarter(int x) {
    auto h = half(x);
    PEERGATE_TRY(h);
    return half(*h);
}

Expected<void> must_be_even(int x) {
    PEERGATE_TRY(half(x));
    return {};
}

TEST(Expected, CarriesAValueOrAnError) {
    const auto ok = half(8);
    ASSERT_TRUE(ok.has_value());
    EXPECT_TRUE(static_cast<bool>(ok));
    EXPECT_EQ(*ok, 4);
    EXPECT_EQ(ok.value(), 4);
    EXPECT_EQ(ok.value_or(-1), 4);

    const auto bad = half(3);
    ASSERT_FALSE(bad.has_value());
    EXPECT_EQ(bad.error().code, ErrorCode::invalid_input);
    EXPECT_EQ(bad.error().message, "3 is odd");
    EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(Expected, TryPropagatesTheFirstError) {
    EXPECT_EQ(*quarter(8), 2);
    EXPECT_EQ(quarter(6).error().message, "3 is odd");
    EXPECT_EQ(quarter(5).error().message, "5 is odd");
    EXPECT_TRUE(must_be_even(2).has_value());
    EXPECT_EQ(must_be_even(7).error(), (Error{ErrorCode::invalid_input, "7 is odd"}));
}

TEST(Expected, HoldsMoveOnlyValuesAndMovesThemOut) {
    Expected<std::unique_ptr<int>> boxed(std::make_unique<int>(5));
    ASSERT_TRUE(boxed.has_value());
    std::unique_ptr<int> taken = std::move(boxed).value();
    EXPECT_EQ(*taken, 5);
    EXPECT_EQ(boxed->get(), nullptr) << "moved from";
}

TEST(Expected, ArrowReachesMembers) {
    Expected<std::string> text(std::string("abc"));
    EXPECT_EQ(text->size(), 3U);
}

TEST(Expected, VoidSuccessAndFailure) {
    Expected<void> ok;
    EXPECT_TRUE(ok.has_value());
    ok.value();  // does not abort
    Expected<void> bad = unexpected(ErrorCode::io, "disk full");
    EXPECT_FALSE(bad.has_value());
    EXPECT_EQ(bad.error().code, ErrorCode::io);
}

TEST(Expected, ErrorCodesHaveStableNames) {
    EXPECT_EQ(to_string(ErrorCode::invalid_input), "invalid_input");
    EXPECT_EQ(to_string(ErrorCode::not_found), "not_found");
    EXPECT_EQ(to_string(ErrorCode::unavailable), "unavailable");
    EXPECT_EQ(to_string(ErrorCode::timeout), "timeout");
    EXPECT_EQ(to_string(ErrorCode::io), "io");
    EXPECT_EQ(to_string(ErrorCode::internal), "internal");
}

TEST(ExpectedDeathTest, ValueOfAFailureAbortsWithTheReason) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(static_cast<void>(half(3).value()), "value\\(\\) of a failed result: 3 is odd");
}

}  // namespace
}  // namespace peergate::util
