// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_log_parallel.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

namespace peergate::sources::nccl {

namespace {

constexpr std::size_t kReadBytes = std::size_t{1} << 20;

// Reads [begin, end) of `fd` into `parser`; an error message, or empty.
std::string read_range(int fd,
                       std::uint64_t begin,
                       std::uint64_t end,
                       sources::nccl::NcclLogParser& parser) {
    std::vector<char> buffer(
        static_cast<std::size_t>(std::min<std::uint64_t>(kReadBytes, end - begin)));
    while (begin < end) {
        const auto want =
            static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), end - begin));
        const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(begin));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return got < 0 ? std::generic_category().message(errno)
                           : "file shrank while read";  // thread-safe, unlike strerror
        }
        parser.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
        begin += static_cast<std::uint64_t>(got);
    }
    return {};
}

util::Expected<void> read_serially(int fd,
                                   std::uint64_t begin,
                                   std::uint64_t end,
                                   sources::nccl::NcclLogParser& parser) {
    if (auto error = read_range(fd, begin, end, parser); !error.empty()) {
        return util::unexpected(util::ErrorCode::io, error);
    }
    return {};
}

// The offset just past the first '\n' at or after `from`; `size` when there is none.
util::Expected<std::uint64_t> next_line_start(int fd, std::uint64_t from, std::uint64_t size) {
    std::vector<char> buffer(std::size_t{64} << 10);
    while (from < size) {
        const ssize_t got = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(from));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            return util::unexpected(util::ErrorCode::io,
                                    got < 0 ? std::strerror(errno) : "file shrank while read");
        }
        const char* data = buffer.data();
        if (const void* newline = std::memchr(data, '\n', static_cast<std::size_t>(got))) {
            return from + static_cast<std::uint64_t>(static_cast<const char*>(newline) - data) + 1;
        }
        from += static_cast<std::uint64_t>(got);
    }
    return size;
}

// Parses pieces 1.. on their own threads and piece 0 on this one; errors[k] says why
// piece k failed. Where a thread cannot start, its piece is read here.
void parse_all(int fd,
               const std::vector<std::uint64_t>& cuts,
               std::vector<sources::nccl::NcclLogParser>& parsers,
               std::vector<std::string>& errors) {
    std::vector<std::thread> threads;
    for (std::size_t k = 1; k < parsers.size(); ++k) {
        const auto work = [&, k] { errors[k] = read_range(fd, cuts[k], cuts[k + 1], parsers[k]); };
        try {
            threads.emplace_back(work);
        } catch (const std::system_error&) {  // std::thread's one way to fail
            work();
        }
    }
    errors[0] = read_range(fd, cuts[0], cuts[1], parsers[0]);
    for (auto& thread : threads) {
        thread.join();
    }
}

}  // namespace

unsigned piece_count(std::uint64_t size, const NcclReadOptions& options) {
    // Each thread holds its own tables (as large as the job's distinct connections), so
    // the default stops at kMaxDefaultThreads however many CPUs there are.
    const unsigned threads =
        options.threads != 0
            ? options.threads
            : std::clamp(std::thread::hardware_concurrency(), 1U, kMaxDefaultThreads);
    const std::uint64_t by_size = size / std::max<std::uint64_t>(options.min_piece_bytes, 1);
    return static_cast<unsigned>(std::clamp<std::uint64_t>(by_size, 1, threads));
}

util::Expected<std::vector<std::uint64_t>> line_cuts(int fd, std::uint64_t size, unsigned pieces) {
    std::vector<std::uint64_t> cuts{0};
    for (unsigned k = 1; k < pieces; ++k) {
        const std::uint64_t target = std::max(size / pieces * k, cuts.back());
        auto cut = next_line_start(fd, target, size);
        PEERGATE_TRY(cut);
        if (*cut > cuts.back() && *cut < size) {
            cuts.push_back(*cut);
        }
    }
    cuts.push_back(size);
    return cuts;
}

util::Expected<void> parse_pieces(int fd,
                                  const std::vector<std::uint64_t>& cuts,
                                  sources::nccl::NcclLogParser& parser) {
    if (cuts.size() < 2) {
        return {};
    }
    // Each piece's parser keeps its share of the budget, so together they keep what one
    // would (entry_budget.hpp).
    const NcclParserLimits share = parser.limits().shared_by(cuts.size() - 1);
    std::vector<sources::nccl::NcclLogParser> parsers;
    parsers.reserve(cuts.size() - 1);
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
        parsers.emplace_back(share);
    }
    std::vector<std::string> errors(parsers.size());
    parse_all(fd, cuts, parsers, errors);
    if (auto failed =
            std::find_if(errors.begin(), errors.end(), [](const auto& e) { return !e.empty(); });
        failed != errors.end()) {
        return util::unexpected(util::ErrorCode::io, *failed);
    }
    const bool any_dropped = std::any_of(
        parsers.begin(), parsers.end(), [](const auto& piece) { return piece.dropped() != 0; });
    if (any_dropped) {
        // Which records a full table drops depends on the order it meets them: only one
        // pass in file order drops those a single pass would.
        parsers.clear();
        return read_serially(fd, cuts.front(), cuts.back(), parser);
    }
    for (std::size_t k = 0; k < parsers.size(); ++k) {
        if (parser.between_records()) {
            parser.merge_from(std::move(parsers[k]));
            continue;
        }
        // The piece began inside a dump (or a line) the pieces before left open: only
        // the parser that read them knows how to go on.
        parsers[k] = sources::nccl::NcclLogParser{};
        PEERGATE_TRY(read_serially(fd, cuts[k], cuts[k + 1], parser));
    }
    return {};
}

}  // namespace peergate::sources::nccl
