// SPDX-License-Identifier: Apache-2.0
#include "util/stream_tail.hpp"

#include <array>

namespace peergate::util {

namespace {

// Drops the oldest bytes beyond `limit`, up to the start of a line where there is one; a
// line longer than the limit is cut at the limit.
void keep_tail(StreamTail& tail, std::size_t limit) {
    if (tail.text.size() <= limit) {
        return;
    }
    std::size_t cut = tail.text.size() - limit;
    if (const auto newline = tail.text.find('\n', cut - 1);
        newline != std::string::npos && newline + 1 < tail.text.size()) {
        cut = newline + 1;
    }
    tail.dropped_bytes += cut;
    tail.text.erase(0, cut);
}

}  // namespace

StreamTail read_stream_tail(std::istream& in, std::size_t limit) {
    StreamTail tail;
    std::array<char, 1 << 16> chunk{};
    while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
        tail.text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
        // Trimmed once the text holds a chunk more than the limit: each byte moves O(1) times.
        if (tail.text.size() >= limit + chunk.size()) {
            keep_tail(tail, limit);
        }
    }
    keep_tail(tail, limit);
    return tail;
}

}  // namespace peergate::util
