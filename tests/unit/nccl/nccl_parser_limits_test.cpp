// SPDX-License-Identifier: Apache-2.0
// The parser's budgets (sources/nccl/entry_budget.hpp, docs/RELIABILITY.md "nccl-log"):
// a log of more distinct records than a table may keep keeps the first ones, counts every
// other record dropped (counts.dropped), and still counts the repeats of what it kept.
#include "sources/nccl/nccl_log_parser.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace peergate::sources::nccl {
namespace {

// Every budget ample except those a test makes small.
NcclParserLimits ample() {
    return NcclParserLimits{.connection_bytes = std::size_t{1} << 30,
                            .rank_bytes = std::size_t{1} << 30,
                            .choice_bytes = std::size_t{1} << 30,
                            .gdr_bytes = std::size_t{1} << 30,
                            .topology_bytes = std::size_t{1} << 30};
}

model::NcclLog parse_with(const NcclParserLimits& limits, std::string_view text) {
    NcclLogParser parser(limits);
    parser.feed(text);
    parser.end_input();
    return parser.result();
}

std::string connection_line(std::string_view host, int channel) {
    return fmt::format(
        "{}:1:2 [0] NCCL INFO Channel {:02}/0 : 0[0] -> 1[1] via P2P/IPC/read\n", host, channel);
}

std::uint64_t lines_kept(const model::NcclLog& log) {
    std::uint64_t lines = 0;
    for (const auto& connection : log.connections) {
        lines += connection.count;
    }
    return lines;
}

TEST(NcclParserLimits, DefaultsKeepEveryRecordOfARealSizedLog) {
    std::string text;
    for (int channel = 0; channel < 64; ++channel) {
        text += connection_line("node-1", channel);
    }
    const auto log = parse_with(NcclParserLimits{}, text);
    EXPECT_EQ(log.connections.size(), 64u);
    EXPECT_EQ(log.counts.dropped, model::NcclDroppedRecords{});
}

TEST(NcclParserLimits, ConnectionsPastTheBudgetAreCountedNotKept) {
    auto limits = ample();
    const std::size_t entry = sizeof(model::NcclConnection) + kEntryOverheadBytes + 2 + 8;
    limits.connection_bytes = 20 * entry;
    std::string text;
    for (int round = 0; round < 2; ++round) {
        for (int channel = 0; channel < 100; ++channel) {
            text += connection_line("h0", channel);
        }
    }
    const auto log = parse_with(limits, text);
    ASSERT_EQ(log.connections.size(), 20u);
    for (std::size_t i = 0; i < log.connections.size(); ++i) {
        EXPECT_EQ(log.connections[i].channel, static_cast<int>(i)) << "the first ones are kept";
        EXPECT_EQ(log.connections[i].count, 2u) << "a kept connection still counts its repeats";
    }
    EXPECT_EQ(log.counts.dropped.connections, 2u * 80u);
    EXPECT_EQ(lines_kept(log) + log.counts.dropped.connections, log.counts.connection_lines);
    EXPECT_EQ(log.counts.dropped.total(), log.counts.dropped.connections);
}

TEST(NcclParserLimits, AStreamOfDistinctKeysKeepsWithinTheBudget) {
    auto limits = ample();
    limits.connection_bytes = std::size_t{1} << 20;
    std::string text;
    for (int i = 0; i < 60000; ++i) {
        text +=
            fmt::format("h{}:1:2 [0] NCCL INFO Channel {:02}/0 : {}[0] -> {}[1] via P2P/IPC/read\n",
                        i % 50,
                        i % 32,
                        i,
                        i + 1);
    }
    const auto log = parse_with(limits, text);
    EXPECT_GT(log.connections.size(), 0u);
    EXPECT_LE(log.connections.size() * (sizeof(model::NcclConnection) + kEntryOverheadBytes),
              limits.connection_bytes);
    EXPECT_EQ(lines_kept(log) + log.counts.dropped.connections, 60000u);
}

TEST(NcclParserLimits, HostsPastTheTextCapAreDropped) {
    auto limits = ample();
    limits.text_count = 4;
    std::string text;
    for (int host = 0; host < 10; ++host) {
        text += connection_line(fmt::format("h{}", host), 0);
    }
    const auto log = parse_with(limits, text);
    std::set<std::string> hosts;
    for (const auto& connection : log.connections) {
        hosts.insert(connection.host);
    }
    EXPECT_EQ(hosts, (std::set<std::string>{"h0", "h1", "h2", "h3"}));
    EXPECT_EQ(log.counts.dropped.connections, 6u);
}

TEST(NcclParserLimits, RanksPastTheBudgetAreCountedAndKeptOnesStillUpdate) {
    auto limits = ample();
    limits.rank_bytes =
        5 * (sizeof(model::NcclRank) + sizeof(std::string) + kEntryOverheadBytes + 2 * 6 + 1 + 16);
    std::string text;
    for (int comm = 0; comm < 50; ++comm) {
        text += fmt::format(
            "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1b000 commId 0x{:04x} - "
            "Init START\n",
            comm);
    }
    text +=
        "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1b000 commId 0x0000 - "
        "Init COMPLETE\n";
    const auto log = parse_with(limits, text);
    ASSERT_EQ(log.ranks.size(), 5u);
    EXPECT_EQ(log.ranks[0].comm_id, "0x0000");
    EXPECT_TRUE(log.ranks[0].init_complete);
    EXPECT_EQ(log.counts.dropped.ranks, 45u);
}

TEST(NcclParserLimits, SettingsGraphsRingsAndTreesShareTheChoiceBudget) {
    auto limits = ample();
    limits.choice_bytes = 4096;
    std::string text;
    for (int i = 0; i < 100; ++i) {
        text += fmt::format("h:1:2 [0] NCCL INFO NCCL_X{} set by environment to {}\n", i, i);
        text += fmt::format("h:1:2 [0] NCCL INFO Channel {:02}/02 :    0 {}\n", i % 64, i + 1);
        text += fmt::format("h:1:2 [0] NCCL INFO Trees [{}] 1/-1/-1->0->-1\n", i);
        text += fmt::format(
            "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels {}, bw 40.0/40.0, type NVL/PIX, "
            "sameChannels 1\n",
            i + 1);
    }
    const auto log = parse_with(limits, text);
    const std::size_t kept =
        log.settings.size() + log.rings.size() + log.trees.size() + log.graphs.size();
    EXPECT_GT(kept, 0u);
    EXPECT_LT(kept, 400u);
    EXPECT_EQ(kept + log.counts.dropped.choices, 400u);
}

TEST(NcclParserLimits, GdrLinesAndDmaBufDevicesPastTheBudgetAreCounted) {
    auto limits = ample();
    limits.gdr_bytes = 2048;
    std::string text;
    for (int i = 0; i < 100; ++i) {
        text += fmt::format(
            "h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA {} 'mlx5_{}' (no "
            "module)\n",
            i,
            i);
        text += fmt::format("h{}:1:2 [0] NCCL INFO DMA-BUF is available on GPU device 0\n", i);
    }
    const auto log = parse_with(limits, text);
    EXPECT_GT(log.gdr.size(), 0u);
    EXPECT_LT(log.gdr.size() + log.dma_buf_devices.size(), 200u);
    EXPECT_EQ(log.gdr.size() + log.dma_buf_devices.size() + log.counts.dropped.gdr, 200u);
}

std::string dump_of(std::string_view source, int gpus) {
    const std::string prefix = fmt::format("{} [0] NCCL INFO ", source);
    std::string text =
        prefix + "=== System : maxBw 48.0 totalBw 370.8 ===\n" + prefix + "CPU/0-0 (1/1/2)\n";
    for (int gpu = 0; gpu < gpus; ++gpu) {
        text += prefix + fmt::format("+ PCI[48.0] - GPU/0-{:x}000 ({})\n", gpu + 1, gpu);
    }
    return text;
}

TEST(NcclParserLimits, DumpLinesPastTheBudgetAreCountedAndTheLineAfterIsRead) {
    auto limits = ample();
    limits.topology_bytes = 8192;
    const std::string text = dump_of("h:1:2", 200) + connection_line("h", 0);
    const auto log = parse_with(limits, text);
    ASSERT_EQ(log.topology.size(), 1u);
    const auto& gpus = log.topology.at("h").gpus;
    EXPECT_GT(gpus.size(), 0u);
    EXPECT_LT(gpus.size(), 200u);
    EXPECT_EQ(gpus.size() + log.counts.dropped.topology, 200u);
    EXPECT_EQ(log.connections.size(), 1u) << "the dump ended where it did without the cap";
}

TEST(NcclParserLimits, ManyPrintingThreadsDoNotGrowTheReadersPastTheBudget) {
    auto limits = ample();
    limits.topology_bytes = 64 * 1024;
    std::string text;
    for (int thread = 0; thread < 5000; ++thread) {
        text += dump_of(fmt::format("h:1:{}", thread), 1);
    }
    const auto log = parse_with(limits, text);
    EXPECT_GT(log.counts.dropped.topology, 0u);
    EXPECT_EQ(log.topology.at("h").gpus.size(), 1u);
}

TEST(NcclParserLimits, TheNextInputGetsTheReadersBudgetBack) {
    auto limits = ample();
    limits.topology_bytes = 16 * 1024;
    NcclLogParser parser(limits);
    for (int file = 0; file < 50; ++file) {
        parser.feed(dump_of(fmt::format("h{}:1:2", file % 3), 2));
        parser.end_input();
    }
    EXPECT_EQ(parser.result().counts.dropped.topology, 0u);
}

TEST(NcclParserLimits, MergeAddsUpWhatEachPartDropped) {
    auto limits = ample();
    limits.text_count = 2;
    NcclLogParser first(limits);
    NcclLogParser later(limits);
    first.feed(connection_line("a", 0) + connection_line("b", 0) + connection_line("c", 0));
    later.feed(connection_line("d", 0) + connection_line("e", 0) + connection_line("f", 0));
    first.merge_from(std::move(later));
    first.end_input();
    const auto log = first.result();
    EXPECT_EQ(log.connections.size(), 2u);
    EXPECT_EQ(log.counts.dropped.connections, 4u) << "one dropped in each, d and e at the merge";
}

// Found by the fuzz target (its merge check): two pieces that each kept every communicator
// head within their own text budget merged into one parser that could not hold them all, so
// the pieces' result differed from reading the file in one pass. Each piece now gets its
// share of the text budgets too: such pieces drop, and nccl-log reads the file serially.
TEST(NcclParserLimits, PiecesShareTheTextBudgetsSoTheirMergeIsTheWholeRead) {
    auto limits = ample();
    limits.text_count = 2;
    const auto rank_line = [](int rank, char comm) {
        return fmt::format(
            "h:1:2 [0] NCCL INFO comm 0x1 rank {} nranks 4 cudaDev 0 busId 1b000 "
            "commId 0x{} - Init START\n",
            rank,
            std::string(20, comm));
    };
    const std::string first = rank_line(0, 'a');
    const std::string second = rank_line(1, 'b') + rank_line(2, 'c') + rank_line(3, 'c');
    const auto whole = parse_with(limits, first + second);
    EXPECT_EQ(whole.counts.dropped.ranks, 2U) << "the third head is one too many";
    NcclLogParser a(limits.shared_by(2));
    NcclLogParser b(limits.shared_by(2));
    a.feed(first);
    b.feed(second);
    if (a.dropped() == 0 && b.dropped() == 0) {
        NcclLogParser merged(limits);
        merged.merge_from(std::move(a));
        merged.merge_from(std::move(b));
        merged.end_input();
        EXPECT_EQ(merged.result(), whole) << "pieces that dropped nothing must merge exactly";
    }
    EXPECT_LE(limits.shared_by(2).text_count * 2, limits.text_count);
    EXPECT_LE(limits.shared_by(2).text_bytes * 2, limits.text_bytes);
}

}  // namespace
}  // namespace peergate::sources::nccl
