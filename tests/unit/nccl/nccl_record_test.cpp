// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_record.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace peergate::sources::nccl {
namespace {

struct Seen {
    std::string host;
    std::string source;
    std::string body;
    bool marked;
};

std::vector<Seen> records_of(std::string_view line) {
    std::vector<Seen> out;
    for_each_record(line, [&out](const NcclRecord& r) {
        out.push_back({std::string(r.host), std::string(r.source), std::string(r.body), r.marked});
    });
    return out;
}

struct PrefixCase {
    const char* line;
    const char* host;
    const char* source;
    const char* body;
};

TEST(NcclRecord, ReadsEveryPrefixShape) {
    // clang-format off
    const PrefixCase cases[] = {
        {"node1:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", "node1", "node1:123:456",
         "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC"},
        {"[1,0]<stdout>:5873af64cf59:10158:10560 [0] NCCL INFO NET/IB : No device found.", "5873af64cf59",
         "5873af64cf59:10158:10560", "NET/IB : No device found."},
        {"+ nodeA:100:110 [0] NCCL INFO Ring 00 : 0 -> 1", "nodeA", "nodeA:100:110", "Ring 00 : 0 -> 1"},
        {"2026-01-02T03:04:05.678Z nodeA:1:2 [7] NCCL INFO x", "nodeA", "nodeA:1:2", "x"},
        {"2025-11-12 20:41:43,851 - INFO - g340-cd51:4181:4857 [0] NCCL INFO Ring 00 : 7 -> 0 -> 1", "g340-cd51",
         "g340-cd51:4181:4857", "Ring 00 : 7 -> 0 -> 1"},
        {"[4] NCCL INFO Ring 00 : 12[41000] -> 11[2d000] via P2P/IPC", "", "",
         "Ring 00 : 12[41000] -> 11[2d000] via P2P/IPC"},
        {"NCCL INFO Bootstrap : Using lo:127.0.0.1<0>", "", "", "Bootstrap : Using lo:127.0.0.1<0>"},
        {"h:1:2 [0] NCCL INFO               + NVL[80.0] - GPU/41000\r", "h", "h:1:2",
         "              + NVL[80.0] - GPU/41000"},
        {"host:pid:tid [0] NCCL INFO text", "", "", "text"},  // pid/tid must be numbers
    };
    // clang-format on
    for (const auto& c : cases) {
        const auto seen = records_of(c.line);
        ASSERT_EQ(seen.size(), 1u) << c.line;
        EXPECT_TRUE(seen[0].marked) << c.line;
        EXPECT_EQ(seen[0].host, c.host) << c.line;
        EXPECT_EQ(seen[0].source, c.source) << c.line;
        EXPECT_EQ(seen[0].body, c.body) << c.line;
    }
}

TEST(NcclRecord, LineWithoutMarkerIsOneUnmarkedRecord) {
    const auto seen = records_of("   + NVL[360.0] - NVS/0");
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_FALSE(seen[0].marked);
    EXPECT_EQ(seen[0].body, "   + NVL[360.0] - NVS/0");
}

// Open MPI --tag-output before a line NCCL printed without its marker (the property test
// of tests/unit/nccl/nccl_mutation_test.cpp found the setting lost).
TEST(NcclRecord, AnUnmarkedLineLosesItsOpenMpiTag) {
    auto seen = records_of("[1,0]<stdout>:NCCL_SOCKET_IFNAME set by environment to eth0");
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].body, "NCCL_SOCKET_IFNAME set by environment to eth0");
    seen = records_of("[1,12]<stderr>:NCCL version 2.24.3+cuda12.2");
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].body, "NCCL version 2.24.3+cuda12.2");
    seen = records_of("[drm] not a tag");
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].body, "[drm] not a tag");
}

TEST(NcclRecord, FlattenedPasteYieldsEachRecord) {
    const auto seen = records_of(
        "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read b:3:4 [1] NCCL INFO "
        "Channel 01/0 : 1[1] -> "
        "0[0] via SHM/direct/direct [2] NCCL INFO Connected all rings");
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[0].host, "a");
    EXPECT_EQ(seen[0].body, "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read");
    EXPECT_EQ(seen[1].host, "b");
    EXPECT_EQ(seen[1].body, "Channel 01/0 : 1[1] -> 0[0] via SHM/direct/direct");
    EXPECT_EQ(seen[2].host, "");
    EXPECT_EQ(seen[2].body, "Connected all rings");
}

TEST(NcclRecord, MarkerSearchHandlesShortAndEdgeInput) {
    EXPECT_EQ(find_marker("", 0), std::string_view::npos);
    EXPECT_EQ(find_marker("NCCL INF", 0), std::string_view::npos);
    EXPECT_EQ(find_marker("NCCL INFO", 0), 0u);
    EXPECT_EQ(find_marker("xx NCCL INFO", 1), 3u);
    EXPECT_EQ(find_marker("INFO NCCL INFO", 0), 5u);
}

}  // namespace
}  // namespace peergate::sources::nccl
