// SPDX-License-Identifier: Apache-2.0
// The parser's fast paths against the plain readers they stand in for: the forward
// prefix read against the marker search and backward scan, the counting table, the text
// cache, the reused ring buffer, and connection lines whose "via" has no space before it.
#include "sources/nccl/flat_index.hpp"
#include "sources/nccl/nccl_log_parser.hpp"
#include "sources/nccl/nccl_record.hpp"
#include "sources/nccl/nccl_record_bodies.hpp"
#include "sources/nccl/recent_texts.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace peergate::sources::nccl {
namespace {

struct LeadingCase {
    const char* line;
    bool fast;  // whether the forward read applies (else the caller falls back)
};

TEST(NcclRecordFastPath, LeadingPrefixAgreesWithTheBackwardScan) {
    // clang-format off
    const LeadingCase cases[] = {
        {"node1:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", true},
        {"[1,0]<stdout>:5873af64cf59:10158:10560 [0] NCCL INFO NET/IB : No device found.", true},
        {"a:b:node:1:2 [3] NCCL INFO x", true},
        {"host:pid:tid [0] NCCL INFO text", true},  // no source, still the first marker
        {"h:1:2 [] NCCL INFO x", true},
        {"h:1:2 [0] NCCL INFO", true},
        {"h:1:2 [0] NCCL INF", false},
        {"h:1:2 [0 1] NCCL INFO x", false},
        {"h:1:2 [0]  NCCL INFO x", false},
        {"h:1:2  [0] NCCL INFO x", false},
        {"h:1:2\t[0] NCCL INFO x", false},
        {"h\t:1:2 [0] NCCL INFO x", false},
        {"+ nodeA:100:110 [0] NCCL INFO Ring 00 : 0 -> 1", false},
        {"[4] NCCL INFO Ring 00", false},
        {"NCCL INFO Bootstrap", false},
        {"h:1:2 [[0] NCCL INFO x", false},
        {"h:1:2 [0]", false},
        {"h:1:2 [0", false},
        {":1:2 [0] NCCL INFO x", true},
        {"h::2 [0] NCCL INFO x", true},
    };
    // clang-format on
    for (const auto& c : cases) {
        SCOPED_TRACE(c.line);
        const std::string_view line = c.line;
        RecordPrefix fast;
        const std::size_t marker = read_leading_prefix(line, fast);
        ASSERT_EQ(marker != std::string_view::npos, c.fast);
        if (!c.fast) {
            continue;
        }
        ASSERT_EQ(marker, find_marker(line, 0));
        const RecordPrefix slow = read_prefix(line, marker, 0);
        EXPECT_EQ(fast.start, slow.start);
        EXPECT_EQ(fast.host, slow.host);
        EXPECT_EQ(fast.source, slow.source);
    }
}

// The records of a line found only by the marker search and the backward scan: what
// for_each_record did before its forward read.
std::vector<std::string> records_by_search(std::string_view line) {
    const std::size_t marker = find_marker(line, 0);
    if (marker == std::string_view::npos) {
        return {fmt::format("unmarked|{}", without_launcher_tag(line))};
    }
    std::vector<std::string> out;
    for_each_record_from(line, marker, read_prefix(line, marker, 0), [&out](const NcclRecord& r) {
        out.push_back(fmt::format("{}|{}|{}", r.host, r.source, r.body));
    });
    return out;
}

TEST(NcclRecordFastPath, RandomLinesGiveTheSameRecords) {
    const std::vector<std::string> pieces = {"h",
                                             "node-1",
                                             ":",
                                             "12",
                                             " ",
                                             "\t",
                                             "[",
                                             "]",
                                             "0",
                                             "NCCL INFO",
                                             "F",
                                             "I",
                                             "via",
                                             "[1,0]<stdout>:"};
    std::mt19937 rng(11);
    for (int round = 0; round < 20000; ++round) {
        std::string line;
        const int count = std::uniform_int_distribution<int>(0, 14)(rng);
        for (int i = 0; i < count; ++i) {
            line += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
        }
        std::vector<std::string> seen;
        for_each_record(line, [&seen](const NcclRecord& r) {
            seen.push_back(r.marked ? fmt::format("{}|{}|{}", r.host, r.source, r.body)
                                    : fmt::format("unmarked|{}", r.body));
        });
        ASSERT_EQ(seen, records_by_search(line)) << '"' << line << '"';
    }
}

TEST(NcclRecordFastPath, MarkerSearchSkipsOtherCapitals) {
    EXPECT_EQ(find_marker("FFF NCCL INFO", 0), 4u);
    EXPECT_EQ(find_marker("IPC INFO NCCL INFO", 0), 9u);
    EXPECT_EQ(find_marker("NCCL INFX NCCL INFO", 0), 10u);
    EXPECT_EQ(find_marker("NCCL INFO", 1), std::string_view::npos);
}

struct IntKeyHash {
    std::size_t operator()(int key) const {
        return static_cast<std::size_t>(key % 7);
    }  // many collisions
};

TEST(NcclFlatIndex, CountsEveryKeyThroughGrowth) {
    FlatIndex<int, IntKeyHash> index;
    std::map<int, std::uint64_t> expected;
    std::map<int, std::uint32_t> values;
    std::mt19937 rng(3);
    for (int i = 0; i < 30000; ++i) {
        const int key = std::uniform_int_distribution<int>(0, 3000)(rng);
        const auto next = static_cast<std::uint32_t>(values.size());
        const auto [value, inserted] = index.count(key, next);
        EXPECT_EQ(inserted, !values.count(key));
        if (inserted) {
            values[key] = next;
        }
        EXPECT_EQ(value, values[key]);
        ++expected[key];
    }
    EXPECT_EQ(index.size(), values.size());
    std::map<std::uint32_t, std::uint64_t> seen;
    index.for_each([&seen](std::uint32_t value, std::uint64_t count) { seen[value] += count; });
    ASSERT_EQ(seen.size(), expected.size());
    for (const auto& [key, count] : expected) {
        EXPECT_EQ(seen[values[key]], count) << key;
    }
}

TEST(NcclFlatIndex, CountsPastThirtyTwoBits) {
    FlatIndex<int, IntKeyHash> index;
    const std::uint64_t big = std::uint64_t{UINT32_MAX} + 5;
    index.count(1, IntKeyHash{}(1), 0, big);
    index.count(1, 0);
    index.count(2, IntKeyHash{}(2), 1, UINT32_MAX - 1);
    index.count(2, 1);  // reaches 2^32 - 1 one line at a time
    index.count(2, 1);
    std::map<std::uint32_t, std::uint64_t> seen;
    index.for_each([&seen](std::uint32_t value, std::uint64_t count) { seen[value] = count; });
    EXPECT_EQ(seen[0], big + 1);
    EXPECT_EQ(seen[1], std::uint64_t{UINT32_MAX} + 1);
}

TEST(NcclRecentTexts, GivesTheInternedIdUnderCollisions) {
    RecentTexts cache;
    std::map<std::string, std::uint32_t, std::less<>> interned;
    int intern_calls = 0;
    const auto intern = [&](std::string_view text) {
        ++intern_calls;
        auto [it, added] =
            interned.try_emplace(std::string(text), static_cast<std::uint32_t>(interned.size()));
        return it->second;
    };
    std::vector<std::string> texts;
    for (int i = 0; i < 2000; ++i) {  // far more than the cache holds
        texts.push_back(fmt::format("gpu-node-{:04}", i));
        texts.push_back(fmt::format("{}", i));  // shorter than 8 bytes
        texts.push_back(fmt::format("a-much-longer-host-name-{}.example", i));  // longer than 16
    }
    texts.emplace_back("");
    texts.emplace_back(std::string_view("x\0y", 3));
    std::mt19937 rng(5);
    for (int i = 0; i < 20000; ++i) {
        const auto& text =
            texts[std::uniform_int_distribution<std::size_t>(0, texts.size() - 1)(rng)];
        const std::uint32_t id = cache.id_of(text, intern);
        ASSERT_EQ(id, interned.at(text)) << text;
    }
    // A text seen again right away comes from the cache.
    const int before = intern_calls;
    cache.id_of("gpu-node-0001", intern);
    cache.id_of("gpu-node-0001", intern);
    EXPECT_LE(intern_calls - before, 1);
}

TEST(NcclRing, ReusedBufferHoldsOnlyTheLatestOrder) {
    RingLine ring;
    ASSERT_TRUE(parse_ring_into("Channel 01/02 :    0   1   2   3   4   5", ring));
    ASSERT_TRUE(parse_ring_into("Channel 02/02 :    7   6", ring));
    EXPECT_EQ(ring.channel, 2);
    EXPECT_EQ(ring.order, (std::vector<int>{7, 6}));
    EXPECT_FALSE(parse_ring_into("Channel 03/02 :", ring));
    EXPECT_FALSE(parse_ring_into("Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", ring));
}

TEST(NcclLogParser, ViaWithoutASpaceBeforeItIsNoConnectionLine) {
    const std::pair<const char*, std::uint64_t> cases[] = {
        {"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1]via P2P/IPC\n", 0},
        {"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1]\tvia P2P/IPC\n", 0},
        {"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1]via P2P/IPC via x\n",
         1},  // " via" later on
        {"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n", 1},
    };
    for (const auto& [text, lines] : cases) {
        SCOPED_TRACE(text);
        NcclLogParser parser;
        parser.feed(text);
        parser.end_input();
        const auto log = parser.result();
        EXPECT_EQ(log.counts.connection_lines, lines);
        EXPECT_EQ(log.connections.size(), lines);
    }
}

}  // namespace
}  // namespace peergate::sources::nccl
