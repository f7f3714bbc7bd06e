// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NCCL log parser and its analysis: any bytes, in any chunking, must parse
// without crashing, and the counts must stay consistent; with budgets small enough that
// the input overflows them, too (every connection line kept, skipped or dropped).
#include "policy/nccl/analysis.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace {

using peergate::sources::nccl::NcclLogParser;
using peergate::sources::nccl::NcclParserLimits;

peergate::model::NcclLog parse_whole(std::string_view text, const NcclParserLimits& limits) {
    NcclLogParser parser(limits);
    parser.feed(text);
    parser.end_input();
    return parser.result();
}

// Under budgets a few records fill: line by line and in one piece give one answer, every
// connection line is accounted for, and two halves that dropped nothing merge into it.
void check_small_budgets(std::string_view text) {
    const NcclParserLimits tiny{.connection_bytes = 4096,
                                .rank_bytes = 2048,
                                .choice_bytes = 2048,
                                .gdr_bytes = 1024,
                                .topology_bytes = 2048,
                                .text_count = 8,
                                .text_bytes = 256};
    const auto log = parse_whole(text, tiny);
    NcclLogParser lines(tiny);
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t newline = text.find('\n', pos);
        const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
        lines.feed(text.substr(pos, end - pos));
        pos = end;
    }
    lines.end_input();
    if (!(log == lines.result())) {
        std::abort();
    }
    std::uint64_t kept = 0;
    for (const auto& connection : log.connections) {
        kept += connection.count;
    }
    if (kept + log.counts.skipped + log.counts.dropped.connections != log.counts.connection_lines) {
        std::abort();
    }
    const std::size_t newline = text.find('\n', text.size() / 2);
    const std::size_t cut = newline == std::string_view::npos ? text.size() : newline + 1;
    NcclLogParser first(tiny.shared_by(2));
    NcclLogParser second(tiny.shared_by(2));
    first.feed(text.substr(0, cut));
    second.feed(text.substr(cut));
    if (first.dropped() == 0 && second.dropped() == 0 && first.between_records()) {
        NcclLogParser merged(tiny);  // as parse_pieces: the pieces merged into a fresh parser
        merged.merge_from(std::move(first));
        merged.merge_from(std::move(second));
        merged.end_input();
        if (!(log == merged.result())) {
            std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check_small_budgets(text);
    peergate::sources::nccl::NcclLogParser whole;
    whole.feed(text);
    whole.end_input();
    // The same bytes in small chunks must give the same result.
    peergate::sources::nccl::NcclLogParser chunked;
    const std::size_t step = size % 13 + 1;
    for (std::size_t pos = 0; pos < size; pos += step) {
        chunked.feed(text.substr(pos, step));
    }
    chunked.end_input();
    const auto log = whole.result();
    if (!(log == chunked.result())) {
        std::abort();
    }
    // Cut at a line start, read by two parsers and merged (as the threaded reader does):
    // the same result again.
    const std::size_t newline = text.find('\n', size / 2);
    const std::size_t cut = newline == std::string_view::npos ? size : newline + 1;
    peergate::sources::nccl::NcclLogParser first;
    peergate::sources::nccl::NcclLogParser second;
    first.feed(text.substr(0, cut));
    second.feed(text.substr(cut));
    if (first.between_records()) {
        first.merge_from(std::move(second));
    } else {
        first.feed(text.substr(cut));
    }
    first.end_input();
    if (!(log == first.result())) {
        std::abort();
    }
    const auto analysis = peergate::policy::nccl::analyze_nccl_log(log, nullptr);
    std::uint64_t total = 0;
    for (auto count : analysis.transport_counts) {
        total += count;
    }
    if (total + log.counts.skipped + log.counts.dropped.connections !=
        log.counts.connection_lines) {
        std::abort();
    }
    return 0;
}
