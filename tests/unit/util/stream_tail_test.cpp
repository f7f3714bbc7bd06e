// SPDX-License-Identifier: Apache-2.0
#include "util/stream_tail.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace peergate::util {
namespace {

std::string numbered_lines(int count) {
    std::string text;
    for (int i = 0; i < count; ++i) {
        text += "[ " + std::to_string(i) + ".000000] line " + std::to_string(i) + "\n";
    }
    return text;
}

TEST(StreamTail, AShortStreamIsKeptWhole) {
    std::istringstream in("one\ntwo\n");
    const auto tail = read_stream_tail(in, 1024);
    EXPECT_EQ(tail.text, "one\ntwo\n");
    EXPECT_EQ(tail.dropped_bytes, 0U);
}

TEST(StreamTail, ALongStreamKeepsItsLastWholeLinesAndCountsTheRest) {
    const std::string text = numbered_lines(200'000);  // about 6 MiB
    std::istringstream in(text);
    const std::size_t limit = 1 << 20;
    const auto tail = read_stream_tail(in, limit);
    EXPECT_LE(tail.text.size(), limit);
    EXPECT_GT(tail.text.size(), limit - 64);
    EXPECT_EQ(tail.text.front(), '[');  // a line start
    EXPECT_TRUE(tail.text.ends_with("line 199999\n"));
    EXPECT_EQ(tail.dropped_bytes + tail.text.size(), text.size());
    EXPECT_EQ(text.substr(tail.dropped_bytes), tail.text);
}

TEST(StreamTail, ALineLongerThanTheLimitIsCutAtTheLimit) {
    std::istringstream in(std::string(5000, 'x'));
    const auto tail = read_stream_tail(in, 1000);
    EXPECT_EQ(tail.text, std::string(1000, 'x'));
    EXPECT_EQ(tail.dropped_bytes, 4000U);
}

}  // namespace
}  // namespace peergate::util
