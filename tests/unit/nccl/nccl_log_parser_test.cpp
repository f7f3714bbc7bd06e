// SPDX-License-Identifier: Apache-2.0
// The parser over real published NCCL logs (tests/fixtures/nccl, provenance in
// tests/fixtures/README.md): every connection line counted with the right transport and
// detail, malformed lines skipped, memory bounded by distinct connections.
#include "sources/nccl/nccl_log_parser.hpp"

#include "nccl_log_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

namespace peergate::sources::nccl {
namespace {

std::string fixture(const std::string& name) {
    std::ifstream in(std::string(PEERGATE_TEST_FIXTURES) + "/nccl/" + name, std::ios::binary);
    EXPECT_TRUE(in) << name;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Lines per transport: P2P, SHM, NET, COLLNET, NVLS.
using Counts = std::array<std::uint64_t, 5>;

Counts transport_lines(const model::NcclLog& log) {
    Counts counts{};
    for (const auto& c : log.connections) {
        counts[static_cast<std::size_t>(c.transport)] += c.count;
    }
    return counts;
}

std::set<std::string> via_texts(const model::NcclLog& log) {
    std::set<std::string> out;
    for (const auto& c : log.connections) {
        if (c.detail == "direct shared memory") {
            out.insert(c.detail);
        } else {
            out.insert(c.detail.empty()
                           ? std::string(model::to_string(c.transport))
                           : fmt::format("{}/{}", model::to_string(c.transport), c.detail));
        }
    }
    return out;
}

struct FixtureCase {
    const char* file;
    Counts lines;               // expected connection lines per transport (grep -c 'via P2P/' ...)
    std::set<std::string> via;  // expected distinct "via" texts (grep -o ' via .*' | sort -u)
};

TEST(NcclLogParser, CountsEveryConnectionLineOfEveryFixture) {
    // clang-format off
    const FixtureCase cases[] = {
        {"nccl-2.9.9-ec2-p2p-ipc-read.log", {13, 0, 0, 0, 0}, {"P2P/IPC/read"}},
        {"nccl-2.2x-h20-cumem-gdrdma-nvswitch.log", {5, 0, 9, 0, 0},
         {"NET/IB/2/GDRDMA", "NET/IB/3/GDRDMA", "P2P/CUMEM"}},
        {"nccl-2.23.4-collnet-sharp.log", {0, 0, 0, 4, 0},
         {"COLLNET/SHARP/0/GDRDMA", "COLLNET/SHARP/1/GDRDMA", "COLLNET/SHARP/5/GDRDMA"}},
        {"nccl-2.7-ring-busid-385.log", {9, 0, 2, 0, 0}, {"NET/IB/1/GDRDMA", "P2P/IPC"}},
        {"nccl-2.4-ring-p2p-ipc-tests29.log", {4, 0, 0, 0, 0}, {"P2P/IPC"}},
        {"nccl-2.4-ring-socket-no-dev-226.log", {0, 0, 3, 0, 0}, {"NET/Socket/0"}},
        {"nccl-2.x-shm-socket.log", {0, 7, 8, 0, 0}, {"NET/Socket/0", "SHM/direct/direct"}},
        {"nccl-2.x-direct-shared-memory-2080ti.log", {0, 2, 0, 0, 0}, {"direct shared memory"}},
        {"nccl-2.2x-nvls-ibext-cumem.log", {5, 0, 5, 0, 0},
         {"NET/IBext_v8/1", "NET/IBext_v8/2", "NET/IBext_v8/3", "NET/IBext_v8/7", "P2P/CUMEM"}},
        {"nccl-2.2x-direct-pointer.log", {9, 0, 0, 0, 0}, {"P2P/direct pointer"}},
        {"nccl-2.2x-direct-pointer-read-ib.log", {10, 0, 4, 0, 0}, {"NET/IB/3", "P2P/direct pointer/read"}},
        {"nccl-2.2x-aws-timestamps-cumem-read.log", {6, 0, 0, 0, 0}, {"P2P/CUMEM/read"}},
        {"nccl-2.1x-busid-gdrdma-707.log", {0, 0, 5, 0, 0}, {"NET/IB/2/GDRDMA", "NET/IB/5/GDRDMA"}},
        {"nccl-2.21.5-vllm-topology-nvswitch.log", {0, 0, 0, 0, 0}, {}},
        {"nccl-2.2x-topology-nvl-mesh.log", {0, 0, 0, 0, 0}, {}},
        {"nccl-2.8-init-complete-no-nvmldev.log", {0, 0, 0, 0, 0}, {}},
        {"nccl-2.5.6-mpirun-prefix.log", {0, 0, 0, 0, 0}, {}},
        {"nccl-2.2x-python-logging-prefix.log", {0, 0, 0, 0, 0}, {}},
        {"rccl-p2p-level-xgmi.log", {0, 0, 0, 0, 0}, {}},
        {"handwritten-all-shapes.log", {11, 2, 4, 2, 1},
         {"COLLNET/SHARP/0/GDRDMA", "COLLNET/SHARP/1", "NET/IB/0(1)/GDRDMA", "NET/IB/0/GDRDMA", "NET/Socket/0",
          "NVLS", "P2P/CUMEM", "P2P/CUMEM/read", "P2P/IPC", "P2P/IPC/read", "P2P/direct pointer",
          "P2P/direct pointer/read", "P2P/indirect/2[2]", "SHM/direct/direct", "direct shared memory"}},
    };
    // clang-format on
    for (const auto& c : cases) {
        SCOPED_TRACE(c.file);
        const auto log = test::parse_nccl_log(fixture(c.file));
        EXPECT_EQ(transport_lines(log), c.lines);
        EXPECT_EQ(via_texts(log), c.via);
        EXPECT_EQ(log.counts.skipped, 0u);
        std::uint64_t total = 0;
        for (auto n : c.lines) {
            total += n;
        }
        EXPECT_EQ(log.counts.connection_lines, total);
    }
}

TEST(NcclLogParser, KeepsHostsRanksDevicesAndBusIds) {
    auto log = test::parse_nccl_log(fixture("nccl-2.9.9-ec2-p2p-ipc-read.log"));
    ASSERT_FALSE(log.connections.empty());
    const auto& first = log.connections.front();
    EXPECT_EQ(first.host, "ip-10-216-178-255");
    EXPECT_EQ(first.channel, 1);
    EXPECT_EQ(first.conn_index, std::nullopt);
    EXPECT_EQ(first.src_rank, 22);
    EXPECT_EQ(first.dst_rank, 21);
    EXPECT_EQ(first.src_dev, std::nullopt);
    EXPECT_EQ(first.src_bus_id, "a01c0");
    EXPECT_EQ(first.dst_bus_id, "901d0");

    log = test::parse_nccl_log(fixture("nccl-2.2x-nvls-ibext-cumem.log"));
    ASSERT_EQ(log.ranks.size(), 4u);
    EXPECT_EQ(log.ranks[0].rank, 36);
    EXPECT_EQ(log.ranks[0].host, "hostname-test");
    EXPECT_EQ(log.ranks[0].nvml_dev, 4);
    EXPECT_EQ(log.ranks[0].bus_id, "9b000");
    EXPECT_TRUE(log.ranks[0].init_complete);
    ASSERT_EQ(log.settings.size(), 1u);
    EXPECT_EQ(log.settings[0], (std::pair<std::string, std::string>{"NCCL_IB_GID_INDEX", "3"}));
    const auto net = std::find_if(
        log.connections.begin(), log.connections.end(), [](const model::NcclConnection& c) {
            return c.detail == "IBext_v8/3";
        });
    ASSERT_NE(net, log.connections.end());
    EXPECT_EQ(net->direction, model::NcclDirection::send);
    EXPECT_EQ(net->src_dev, 4);
    EXPECT_EQ(net->conn_index, 0);
}

TEST(NcclLogParser, ReadsVersionRanksGraphsRingsAndSettings) {
    auto log = test::parse_nccl_log(fixture("nccl-2.5.6-mpirun-prefix.log"));
    EXPECT_EQ(log.nccl_version, "2.5.6+cuda10.2");

    log = test::parse_nccl_log(fixture("nccl-2.8-init-complete-no-nvmldev.log"));
    ASSERT_EQ(log.ranks.size(), 8u);
    for (const auto& rank : log.ranks) {
        EXPECT_TRUE(rank.init_complete);
        EXPECT_EQ(rank.nvml_dev, std::nullopt);
        EXPECT_EQ(rank.nranks, 16);
    }

    log = test::parse_nccl_log(fixture("nccl-2.2x-h20-cumem-gdrdma-nvswitch.log"));
    ASSERT_EQ(log.graphs.size(), 1u);
    EXPECT_EQ(log.graphs[0].intra_type, "NVL");
    EXPECT_EQ(log.graphs[0].inter_type, "PIX");
    EXPECT_EQ(log.graphs[0].n_channels, 4);
    EXPECT_EQ(log.topology.at("H20-GPU-05").nvswitches.at("NVS/0"),
              (std::set<std::string>{"18000"}));

    log = test::parse_nccl_log(fixture("nccl-2.2x-python-logging-prefix.log"));
    ASSERT_EQ(log.rings.size(), 1u);
    EXPECT_EQ(log.rings[0].channel, 23);
    EXPECT_EQ(log.rings[0].host, "g340-cd51-4900-b72a-d104-a9bf-df48");

    log = test::parse_nccl_log(fixture("nccl-2.2x-h20-cumem-gdrdma-nvswitch.log"));
    ASSERT_EQ(log.trees.size(), 4u);  // rank 1, channels 0..3
    EXPECT_EQ(log.trees[1].rank, 1);
    EXPECT_EQ(log.trees[1].children, (std::vector<int>{0, 3}));
    EXPECT_EQ(log.trees[1].parent, std::nullopt);

    log = test::parse_nccl_log(fixture("rccl-p2p-level-xgmi.log"));
    EXPECT_EQ(log.settings,
              (std::vector<std::pair<std::string, std::string>>{{"NCCL_P2P_LEVEL", "XGMI"}}));
    EXPECT_TRUE(log.conflicting_settings.empty());
}

TEST(NcclLogParser, SkipsMalformedAndTruncatedLinesWithoutStopping) {
    const auto log = test::parse_nccl_log(fixture("handwritten-malformed.log"));
    // Readable: channel 0 (IPC/read), 7 and 8 (one flattened line), 9 (CRLF); the rest
    // are malformed connection lines (8), a truncated one without "via", and noise.
    EXPECT_EQ(transport_lines(log), (Counts{3, 1, 0, 0, 0}));
    EXPECT_EQ(log.counts.skipped, 8u);
    std::set<int> channels;
    for (const auto& c : log.connections) {
        channels.insert(c.channel);
    }
    EXPECT_EQ(channels, (std::set<int>{0, 7, 8, 9}));
    EXPECT_TRUE(log.ranks.empty());
    EXPECT_TRUE(log.graphs.empty());
    EXPECT_TRUE(log.settings.empty());
}

TEST(NcclLogParser, RepeatedLinesAreCountedNotStored) {
    const std::string line = "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n";
    NcclLogParser parser;
    for (int i = 0; i < 20000; ++i) {
        parser.feed(line);
        parser.feed(fmt::format(
            "h:1:2 [0] NCCL INFO Channel {:02}/0 : 0[0] -> 1[1] via P2P/IPC/read\n", i % 24));
    }
    parser.end_input();
    const auto log = parser.result();
    EXPECT_EQ(log.connections.size(), 24u);
    EXPECT_EQ(log.connections.front().count, 20000u + 20000u / 24u + 1u);
    EXPECT_EQ(log.counts.lines, 40000u);
}

TEST(NcclLogParser, ChunkBoundariesDoNotChangeTheResult) {
    const std::string text = fixture("handwritten-all-shapes.log") +
                             fixture("nccl-2.2x-h20-cumem-gdrdma-nvswitch.log") +
                             fixture("handwritten-nvlink-unused.log");
    const auto whole = test::parse_nccl_log(text);
    std::mt19937 rng(7);
    for (int round = 0; round < 20; ++round) {
        NcclLogParser parser;
        std::size_t pos = 0;
        while (pos < text.size()) {
            const std::size_t size = std::uniform_int_distribution<std::size_t>(1, 97)(rng);
            parser.feed(std::string_view(text).substr(pos, size));
            pos += size;
        }
        parser.end_input();
        EXPECT_EQ(parser.result(), whole);
    }
}

TEST(NcclLogParser, OverlongLineIsDroppedAndCounted) {
    NcclLogParser parser;
    const std::string big(kMaxLineBytes + 10, 'x');
    parser.feed(big);
    parser.feed("\nh:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n");
    parser.end_input();
    const auto log = parser.result();
    EXPECT_EQ(log.counts.skipped, 1u);
    ASSERT_EQ(log.connections.size(), 1u);
}

TEST(NcclLogParser, LastLineWithoutNewlineIsRead) {
    const auto log =
        test::parse_nccl_log("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC");
    ASSERT_EQ(log.connections.size(), 1u);
}

}  // namespace
}  // namespace peergate::sources::nccl
