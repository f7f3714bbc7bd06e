// SPDX-License-Identifier: Apache-2.0
// nccl-log's threaded reader against one pass: every fixture cut at every line start, and
// a generated log (dumps, settings with many values, rank fields that change, a last line
// without '\n') read by 2 to 7 threads, must give exactly the one-pass result. These run
// under ThreadSanitizer (ctest label threads, preset tsan).
#include "sources/nccl/nccl_log_file.hpp"
#include "sources/nccl/nccl_log_parallel.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace peergate::sources::nccl {
namespace {

using sources::nccl::NcclLogParser;

model::NcclLog one_pass(std::string_view text) {
    NcclLogParser parser;
    parser.feed(text);
    parser.end_input();
    return parser.result();
}

// A file holding `text`, removed at the end of the test.
class TempLog {
public:
    explicit TempLog(const std::string& text) {
        static int serial = 0;
        path_ = fmt::format("{}/nccl-parallel-{}-{}.log", testing::TempDir(), ::getpid(), serial++);
        std::ofstream(path_, std::ios::binary) << text;
        fd_ = ::open(path_.c_str(), O_RDONLY);
    }

    ~TempLog() {
        ::close(fd_);
        std::filesystem::remove(path_);
    }

    int fd() const { return fd_; }

    const std::string& path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
};

model::NcclLog in_pieces(const TempLog& file, const std::vector<std::uint64_t>& cuts) {
    NcclLogParser parser;
    EXPECT_TRUE(parse_pieces(file.fd(), cuts, parser));
    parser.end_input();
    return parser.result();
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::uint64_t> line_starts(std::string_view text) {
    std::vector<std::uint64_t> starts;
    for (std::size_t at = text.find('\n'); at != std::string_view::npos && at + 1 < text.size();
         at = text.find('\n', at + 1)) {
        starts.push_back(at + 1);
    }
    return starts;
}

// Rank lines whose fields come and go (a busId that is not hex clears the one before),
// settings with more values than are kept, and a dump printed by two threads at once.
const char* const kHandwritten =
    "a:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1b000 commId 0xab - Init START\n"
    "a:1:2 [0] NCCL INFO === System : maxBw 48.0 totalBw 370.8 ===\n"
    "b:3:4 [1] NCCL INFO === System : maxBw 48.0 totalBw 370.8 ===\n"
    "a:1:2 [0] NCCL INFO CPU/0-0 (1/1/2)\n"
    "b:3:4 [1] NCCL INFO GPU/0-1b000 (0)\n"
    "a:1:2 [0] NCCL INFO + PCI[48.0] - GPU/0-1b000 (0)\n"
    "b:3:4 [1] NCCL INFO               + NVL[370.8] - NVS/0\n"
    "a:1:2 [0] NCCL INFO               + NVL[370.8] - GPU/0-2c000 (1)\n"
    "b:3:4 [1] NCCL INFO GPU/0-2c000\n"
    "a:1:2 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0\n"
    "b:3:4 [1] NCCL INFO               + NVL[370.8] - NVS/0\n"
    "b:3:4 [1] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
    "a:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId zz commId 0xab - Init COMPLETE\n"
    "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n"
    "b:3:4 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 2c000 - Init COMPLETE\n"
    "a:1:2 [0] NCCL INFO Channel 00/0 : 0[1b000] -> 1[2c000] via P2P/IPC/read\n"
    "a:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 40.0/40.0, type NVL/PIX, "
    "sameChannels 1\n"
    "a:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1\n"
    "a:1:2 [0] NCCL INFO Channel 00/02 :    0   1\n"
    "a:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 40.0/40.0, type NVL/PIX, "
    "sameChannels 1\n"
    "a:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1\n"
    "a:1:2 [0] NCCL INFO Channel 00/02 :    0   1\n"
    "b:3:4 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 - Init COMPLETE\n"
    "b:3:4 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [send] via NET/IB/0/GDRDMA\n"
    "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1]\n"
    "a:1:2 [0] NCCL INFO NCCL_IB_HCA set to mlx5_1\n"
    "a:1:2 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0\n"
    "b:3:4 [1] NCCL INFO NCCL version 2.22.0+cuda12.4\n"
    "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read";

std::vector<std::pair<std::string, std::string>> inputs() {
    std::vector<std::pair<std::string, std::string>> out{{"handwritten", kHandwritten}};
    std::string all;
    std::vector<std::filesystem::path> files;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(PEERGATE_TEST_FIXTURES) + "/nccl")) {
        if (entry.path().extension() == ".log") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        out.emplace_back(path.filename().string(), read_text(path));
        all += out.back().second;
    }
    out.emplace_back("all fixtures", all);
    for (int i = 0; i < 20; ++i) {
        out.emplace_back(fmt::format("settings {}", i),
                         fmt::format("h:1:2 [0] NCCL INFO NCCL_X set to v{}\n", i % 18));
    }
    return out;
}

TEST(NcclParallelParse, EveryFixtureCutAtEveryLineStart) {
    for (const auto& [name, text] : inputs()) {
        SCOPED_TRACE(name);
        const auto whole = one_pass(text);
        const TempLog file(text);
        const auto size = static_cast<std::uint64_t>(text.size());
        const auto starts = line_starts(text);
        // Every line start of each file; every fifth of all of them together (each file's
        // seams are covered already), which keeps the test fast under ThreadSanitizer.
        const std::size_t stride = name == "all fixtures" ? 5 : 1;
        for (std::size_t i = 0; i < starts.size(); i += stride) {
            ASSERT_EQ(in_pieces(file, {0, starts[i], size}), whole) << "cut at " << starts[i];
        }
        std::mt19937 rng(9);
        for (int round = 0; round < 20 && starts.size() >= 3; ++round) {
            std::vector<std::uint64_t> cuts;
            std::sample(starts.begin(), starts.end(), std::back_inserter(cuts), 3, rng);
            cuts.insert(cuts.begin(), 0);
            cuts.push_back(size);
            ASSERT_EQ(in_pieces(file, cuts), whole) << fmt::format("cuts {}", fmt::join(cuts, ","));
        }
    }
}

TEST(NcclParallelParse, SettingsKeepTheFirstValuesAcrossPieces) {
    std::string text;
    for (int i = 0; i < 40; ++i) {
        text += fmt::format("h:1:2 [0] NCCL INFO NCCL_X set to v{}\n", (i * 7) % 23);
    }
    const TempLog file(text);
    const auto whole = one_pass(text);
    ASSERT_EQ(whole.conflicting_settings.size(), 1u);
    EXPECT_EQ(whole.conflicting_settings[0].second.size(), 16u);
    for (const auto cut : line_starts(text)) {
        ASSERT_EQ(in_pieces(file, {0, cut, text.size()}), whole) << cut;
    }
}

// A log like the benchmark's, smaller: 8 hosts x 8 GPUs, connection, ring, rank, graph
// and setting lines in random order, with a dump now and then.
std::string generated_log(std::size_t lines) {
    std::mt19937 rng(42);
    std::string text;
    const auto pick = [&rng](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    for (std::size_t i = 0; i < lines; ++i) {
        const int host = pick(8);
        const int dev = pick(8);
        const int rank = host * 8 + dev;
        const std::string prefix =
            fmt::format("node-{:02}:{}:{} [{}] NCCL INFO ", host, 1000 + rank, 2000 + rank, dev);
        switch (pick(9)) {
            case 0:
                text +=
                    prefix + fmt::format("Channel {:02}/0 : {}[{}] -> {}[{}] via P2P/IPC/read\n",
                                         pick(32),
                                         rank,
                                         dev,
                                         host * 8 + (dev + 1) % 8,
                                         (dev + 1) % 8);
                break;
            case 1:
                text +=
                    prefix +
                    fmt::format("Channel {:02}/0 : {}[{}] -> {}[{}] [send] via NET/IB/{}/GDRDMA\n",
                                pick(32),
                                rank,
                                dev,
                                (rank + 8) % 64,
                                dev,
                                dev % 4);
                break;
            case 2:
                text += prefix +
                        fmt::format(
                            "Channel {:02}/32 :    {} {} {}\n", pick(4), rank, pick(64), pick(64));
                break;
            case 3:
                text += prefix + fmt::format(
                                     "comm 0x{:x} rank {} nranks 64 cudaDev {} busId {:x} commId "
                                     "0x5a - Init {}\n",
                                     rank,
                                     rank,
                                     dev,
                                     0x18000 + dev * 0x10000,
                                     pick(2) ? "COMPLETE" : "START");
                break;
            case 4:
                text += prefix + fmt::format(
                                     "Pattern 4, crossNic 0, nChannels {}, bw 40.0/40.0, type "
                                     "NVL/PIX, sameChannels 1\n",
                                     8 << pick(2));
                break;
            case 5:
                text +=
                    prefix + fmt::format("NCCL_IB_GID_INDEX set by environment to {}.\n", pick(20));
                break;
            case 6:
                text +=
                    prefix + "=== System : maxBw 48.0 totalBw 370.8 ===\n" + prefix +
                    "CPU/0-0 (1/1/2)\n" + prefix +
                    fmt::format("+ PCI[48.0] - GPU/0-{:x} ({})\n", 0x18000 + dev * 0x10000, rank);
                break;
            case 7:
                text += prefix + fmt::format("+ NVL[48.0] - GPU/0-{:x} ({})\n",
                                             0x18000 + pick(8) * 0x10000,
                                             rank);
                break;
            default:
                text += prefix + "Connected all rings\n";
                break;
        }
    }
    return text + "node-00:1000:2000 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read";
}

TEST(NcclParallelParse, GeneratedLogReadByManyThreadsEqualsOnePass) {
    const std::string text = generated_log(8000);
    const auto whole = one_pass(text);
    const TempLog file(text);
    for (const unsigned threads : {2U, 3U, 4U, 7U}) {
        SCOPED_TRACE(threads);
        const auto cuts = line_cuts(file.fd(), text.size(), threads);
        ASSERT_TRUE(cuts);
        EXPECT_EQ(cuts->size(), threads + 1u);
        for (std::size_t k = 1; k + 1 < cuts->size(); ++k) {
            EXPECT_EQ(text[(*cuts)[k] - 1], '\n');
        }
        NcclLogParser parser;
        ASSERT_TRUE(stream_log_file(
            file.path(), parser, NcclReadOptions{.threads = threads, .min_piece_bytes = 1}));
        EXPECT_EQ(parser.result(), whole);
    }
}

// Budgets so small that the generated log overflows each table: which records are kept
// and how many are counted dropped must still be what one pass keeps and counts.
TEST(NcclParallelParse, TablesPastTheirBudgetDropWhatOnePassDrops) {
    const std::string text = generated_log(8000);
    const NcclParserLimits limits{.connection_bytes = 40 * 1024,
                                  .rank_bytes = 4 * 1024,
                                  .choice_bytes = 4 * 1024,
                                  .gdr_bytes = 1024,
                                  .topology_bytes = 2 * 1024,
                                  .text_count = 6};
    NcclLogParser serial(limits);
    serial.feed(text);
    serial.end_input();
    const auto whole = serial.result();
    ASSERT_GT(whole.counts.dropped.connections, 0u);
    ASSERT_GT(whole.counts.dropped.topology, 0u);
    const TempLog file(text);
    for (const unsigned threads : {2U, 5U}) {
        SCOPED_TRACE(threads);
        NcclLogParser parser(limits);
        ASSERT_TRUE(stream_log_file(
            file.path(), parser, NcclReadOptions{.threads = threads, .min_piece_bytes = 1}));
        EXPECT_EQ(parser.result(), whole);
    }
}

// A budget one pass stays within but a piece's share does not: the pieces drop, so the
// file is read again in one pass, which keeps everything.
TEST(NcclParallelParse, PiecesThatDropAreReadAgainInOnePass) {
    const std::string text = generated_log(8000);
    const std::size_t distinct = one_pass(text).connections.size();
    NcclParserLimits limits;
    // The most a connection of this log costs: its host "node-NN" and detail "IB/N/GDRDMA".
    limits.connection_bytes = distinct * (sizeof(model::NcclConnection) + kEntryOverheadBytes + 18);
    NcclLogParser serial(limits);
    serial.feed(text);
    serial.end_input();
    const auto whole = serial.result();
    ASSERT_EQ(whole.counts.dropped.total(), 0u);
    NcclLogParser quarter(limits.shared_by(4));
    quarter.feed(std::string_view(text).substr(0, text.size() / 4));
    ASSERT_GT(quarter.dropped(), 0u) << "a piece's share is too small: the fallback is tested";
    const TempLog file(text);
    NcclLogParser parser(limits);
    ASSERT_TRUE(
        stream_log_file(file.path(), parser, NcclReadOptions{.threads = 4, .min_piece_bytes = 1}));
    EXPECT_EQ(parser.result(), whole);
}

TEST(NcclParallelParse, SmallFilesAndOneThreadStaySerial) {
    EXPECT_EQ(piece_count(100, NcclReadOptions{.threads = 4}), 1u);
    EXPECT_EQ(piece_count(std::uint64_t{64} << 20, NcclReadOptions{.threads = 1}), 1u);
    EXPECT_EQ(piece_count(std::uint64_t{64} << 20, NcclReadOptions{.threads = 8}), 4u);
    EXPECT_EQ(piece_count(std::uint64_t{1} << 30, NcclReadOptions{.threads = 8}), 8u);
    const unsigned cores = std::clamp(std::thread::hardware_concurrency(), 1U, kMaxDefaultThreads);
    EXPECT_EQ(piece_count(std::uint64_t{1} << 40, NcclReadOptions{}), cores);
    EXPECT_EQ(piece_count(std::uint64_t{1} << 40, NcclReadOptions{.threads = 32}), 32u);
    // No newline after the middle: one piece, whatever was asked.
    const std::string text(1000, 'x');
    const TempLog file(text);
    const auto cuts = line_cuts(file.fd(), text.size(), 4);
    ASSERT_TRUE(cuts);
    EXPECT_EQ(*cuts, (std::vector<std::uint64_t>{0, 1000}));
}

TEST(NcclParallelParse, UnreadableFileIsAnError) {
    NcclLogParser parser;
    const auto read =
        stream_log_file("/nonexistent/nccl.log", parser, NcclReadOptions{.threads = 4});
    ASSERT_FALSE(read);
    EXPECT_NE(read.error().message.find("/nonexistent/nccl.log"), std::string::npos);
}

}  // namespace
}  // namespace peergate::sources::nccl
