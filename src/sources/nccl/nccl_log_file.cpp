// SPDX-License-Identifier: Apache-2.0
#include "sources/nccl/nccl_log_file.hpp"

#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace peergate::sources::nccl {

namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

struct FileCloser {
    void operator()(std::FILE* file) const {
        if (file != nullptr && file != stdin) {
            std::fclose(file);
        }
    }
};

struct FdCloser {
    int fd;

    ~FdCloser() { ::close(fd); }
};

// Parses `path` in pieces on several threads when it is a regular file large enough;
// false when it is not (or cannot be opened: the one-pass reader then says why).
util::Expected<bool> stream_in_pieces(const std::string& path,
                                      sources::nccl::NcclLogParser& parser,
                                      const NcclReadOptions& options) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    const FdCloser closer{fd};

    struct stat info {};

    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        return false;
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    const unsigned pieces = piece_count(size, options);
    if (pieces < 2) {
        return false;
    }
    auto cuts = line_cuts(fd, size, pieces);
    util::Expected<void> parsed =
        cuts ? parse_pieces(fd, *cuts, parser)
             : util::Expected<void>(util::unexpected(std::move(cuts).error()));
    parser.end_input();
    if (!parsed) {
        return util::unexpected(util::ErrorCode::io, path + ": " + parsed.error().message);
    }
    return true;
}

}  // namespace

util::Expected<void> stream_log_file(const std::string& path,
                                     sources::nccl::NcclLogParser& parser,
                                     const NcclReadOptions& options) {
    if (path != "-") {
        auto in_pieces = stream_in_pieces(path, parser, options);
        PEERGATE_TRY(in_pieces);
        if (*in_pieces) {
            return {};
        }
    }
    std::unique_ptr<std::FILE, FileCloser> file(path == "-" ? stdin
                                                            : std::fopen(path.c_str(), "rb"));
    if (!file) {
        return util::unexpected(util::ErrorCode::io, path + ": " + std::strerror(errno));
    }
    std::vector<char> buffer(kChunkBytes);
    while (true) {
        const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), file.get());
        if (got > 0) {
            parser.feed(std::string_view(buffer.data(), got));
        }
        if (got < buffer.size()) {
            break;
        }
    }
    const bool failed = std::ferror(file.get()) != 0;
    parser.end_input();
    if (failed) {
        return util::unexpected(util::ErrorCode::io, path + ": read error");
    }
    return {};
}

}  // namespace peergate::sources::nccl
