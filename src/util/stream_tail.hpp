// SPDX-License-Identifier: Apache-2.0
// Reads a stream of any length (a kernel log piped to stdin) in bounded memory: it keeps the
// last `limit` bytes, cut at a line start, and counts what it dropped before them, so the
// caller can say so (issue 34: a streaming reader never grows with its input, never silently).
#pragma once

#include <cstdint>
#include <istream>
#include <string>

namespace peergate::util {

struct StreamTail {
    std::string text;                 // the last whole lines, at most `limit` bytes
    std::uint64_t dropped_bytes = 0;  // read and not kept (0: the whole stream is in text)
};

StreamTail read_stream_tail(std::istream& in, std::size_t limit);

}  // namespace peergate::util
