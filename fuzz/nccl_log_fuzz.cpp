// SPDX-License-Identifier: Apache-2.0
// Fuzzes the NCCL log parser and its analysis: any bytes, in any chunking, must parse
// without crashing, and the counts must stay consistent.
#include "policy/nccl/analysis.hpp"
#include "sources/nccl/nccl_log_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
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
    if (total + log.counts.skipped != log.counts.connection_lines) {
        std::abort();
    }
    return 0;
}
