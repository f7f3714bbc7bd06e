// SPDX-License-Identifier: Apache-2.0
// One NCCL log file parsed on several threads: the file is cut at line starts, each piece
// is read (pread, a bounded buffer per thread) by its own parser, and the parsers are
// merged in file order, so the result is the one a single pass gives. A piece that begins
// inside a topology dump (the parser before it ended with a dump open) is read again,
// serially, by the merged parser instead. Each piece's parser has its share of the budget
// (entry_budget.hpp); when one drops records, the whole file is read again in one pass,
// which drops what a single pass drops. (Merged into a parser that already holds other
// files near its budget, the pieces may keep other records than one pass would: both
// count what they drop.)
#pragma once

#include "sources/nccl/nccl_log_parser.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <vector>

namespace peergate::sources::nccl {

inline constexpr unsigned kMaxDefaultThreads = 8;

struct NcclReadOptions {
    unsigned threads = 0;  // 0: one per CPU, at most kMaxDefaultThreads; 1: one pass on this thread
    // Files shorter than two of these are read in one pass: threads cost more than they save.
    std::uint64_t min_piece_bytes = std::uint64_t{16} << 20;
};

// How many pieces a file of `size` bytes is cut into under `options` (1: one pass).
unsigned piece_count(std::uint64_t size, const NcclReadOptions& options);

// Offsets of `fd` that cut [0, size) into at most `pieces` pieces, each starting at a
// line start: 0, ..., size (fewer when the file has few lines).
util::Expected<std::vector<std::uint64_t>> line_cuts(int fd, std::uint64_t size, unsigned pieces);

// Parses the pieces of `fd` between consecutive `cuts` (line starts, first 0 or where the
// parser stands), one thread each, into `parser`, as if read in one pass. The input is
// not ended: the caller calls end_input().
util::Expected<void> parse_pieces(int fd,
                                  const std::vector<std::uint64_t>& cuts,
                                  sources::nccl::NcclLogParser& parser);

}  // namespace peergate::sources::nccl
