// SPDX-License-Identifier: Apache-2.0
// Properties of the NCCL log reader over every log fixture: how the bytes are cut into
// chunks, CRLF line ends and a launcher's prefix never change what is read, and a log cut
// after any line reads as a part of the whole (no connection, rank or version the whole lacks).
#include "nccl_log_support.hpp"
#include "support/fixture_files.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <vector>

namespace peergate::sources::nccl {
namespace {

std::string joined(const std::vector<std::string>& lines,
                   std::size_t count,
                   std::string_view prefix = "",
                   std::string_view end = "\n") {
    std::string text;
    for (std::size_t k = 0; k < count && k < lines.size(); ++k) {
        text.append(prefix).append(lines[k]).append(end);
    }
    return text;
}

model::NcclLog fed_in_chunks(const std::string& text, std::size_t chunk) {
    NcclLogParser parser;
    for (std::size_t at = 0; at < text.size(); at += chunk) {
        parser.feed(std::string_view(text).substr(at, chunk));
    }
    parser.end_input();
    return parser.result();
}

class NcclMutation : public testing::TestWithParam<std::string> {
protected:
    std::string text_ = test::read_fixture("nccl", GetParam());
    std::vector<std::string> lines_ = test::lines_of(text_);
};

TEST_P(NcclMutation, HowTheBytesAreChunkedNeverChangesTheReading) {
    const auto whole = test::parse_nccl_log(text_);
    for (const std::size_t chunk : {1U, 2U, 7U, 64U, 4093U}) {
        EXPECT_EQ(fed_in_chunks(text_, chunk), whole) << "chunks of " << chunk << " bytes";
    }
}

TEST_P(NcclMutation, CrlfLineEndsReadTheSame) {
    auto crlf = test::parse_nccl_log(joined(lines_, lines_.size(), "", "\r\n"));
    auto lf = test::parse_nccl_log(joined(lines_, lines_.size()));
    EXPECT_EQ(crlf, lf);
}

// Open MPI's --tag-output puts "[1,N]<stdout>:" before every line of rank N.
TEST_P(NcclMutation, AnOpenMpiPrefixReadsTheSameConnectionsAndRanks) {
    if (GetParam().find("mpirun") != std::string::npos) {
        GTEST_SKIP() << "already prefixed";
    }
    const auto plain = test::parse_nccl_log(joined(lines_, lines_.size()));
    const auto tagged = test::parse_nccl_log(joined(lines_, lines_.size(), "[1,0]<stdout>:"));
    EXPECT_EQ(tagged.connections, plain.connections);
    EXPECT_EQ(tagged.ranks, plain.ranks);
    EXPECT_EQ(tagged.settings, plain.settings);
    EXPECT_EQ(tagged.nccl_version, plain.nccl_version);
    EXPECT_EQ(tagged.diagnostics, plain.diagnostics);
    EXPECT_EQ(tagged.ras, plain.ras);
}

template <typename Entry>
void expect_part_of(const std::vector<Entry>& part,
                    const std::vector<Entry>& whole,
                    const char* what) {
    for (const auto& entry : part) {
        auto same = std::find_if(whole.begin(), whole.end(), [&](const Entry& w) {
            Entry counted = entry;
            counted.count = w.count;
            return counted == w && entry.count <= w.count;
        });
        EXPECT_NE(same, whole.end()) << "a " << what << " the whole log lacks";
    }
}

TEST_P(NcclMutation, ALogCutAfterAnyLineReadsAsAPartOfTheWhole) {
    const auto whole = test::parse_nccl_log(text_);
    for (std::size_t keep = 0; keep <= lines_.size(); ++keep) {
        SCOPED_TRACE("first " + std::to_string(keep) + " lines");
        const auto part = test::parse_nccl_log(joined(lines_, keep));
        expect_part_of(part.connections, whole.connections, "connection");
        expect_part_of(part.graphs, whole.graphs, "graph line");
        expect_part_of(part.gdr, whole.gdr, "GPU Direct RDMA line");
        expect_part_of(part.diagnostics, whole.diagnostics, "diagnostics line");
        expect_part_of(part.ras, whole.ras, "RAS line");
        EXPECT_LE(part.ranks.size(), whole.ranks.size());
        for (const auto& rank : part.ranks) {
            const bool known = std::any_of(whole.ranks.begin(), whole.ranks.end(), [&](auto& w) {
                return w.rank == rank.rank && w.host == rank.host && w.comm_id == rank.comm_id &&
                       (!rank.init_complete || w.init_complete);
            });
            EXPECT_TRUE(known) << "rank " << rank.rank << " on '" << rank.host << "'";
        }
        EXPECT_TRUE(part.nccl_version.empty() || part.nccl_version == whole.nccl_version);
        for (const auto& [name, value] : part.settings) {
            EXPECT_NE(
                std::find(whole.settings.begin(), whole.settings.end(), std::pair{name, value}),
                whole.settings.end())
                << name;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryFile,
                         NcclMutation,
                         testing::ValuesIn(test::fixture_names("nccl", ".log")),
                         [](const auto& param_info) {
                             return test::fixture_test_name(param_info.param, param_info.index);
                         });

}  // namespace
}  // namespace peergate::sources::nccl
