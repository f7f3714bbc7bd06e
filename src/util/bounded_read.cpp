// SPDX-License-Identifier: Apache-2.0
#include "util/bounded_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace peergate::util {

namespace {

class Descriptor {
public:
    explicit Descriptor(int fd) : fd_(fd) {}

    ~Descriptor() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }

    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;

    int get() const { return fd_; }

private:
    int fd_;
};

Unexpected failed(const std::string& path, const std::string& why) {
    return unexpected(ErrorCode::io, "cannot read " + path + ": " + why);
}

}  // namespace

const char* file_kind(unsigned int mode) {
    switch (mode & S_IFMT) {
        case S_IFDIR:
            return "a directory";
        case S_IFIFO:
            return "a FIFO";
        case S_IFCHR:
            return "a character device";
        case S_IFBLK:
            return "a block device";
        case S_IFSOCK:
            return "a socket";
        case S_IFLNK:
            return "a symbolic link";
        default:
            return "not a plain file";
    }
}

Expected<std::string> read_regular_file(const std::string& path, std::size_t limit) {
    const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        return failed(path, std::strerror(errno));
    }

    struct stat st {};

    if (::fstat(fd.get(), &st) != 0) {
        return failed(path, std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return failed(path,
                      std::string("not a regular file (it is ") + file_kind(st.st_mode) + ")");
    }
    if (static_cast<std::size_t>(st.st_size) > limit) {
        return failed(path, "larger than " + std::to_string(limit) + " bytes");
    }
    std::string content;
    char buffer[65536];
    for (;;) {
        const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            return failed(path, std::strerror(errno));
        }
        if (got == 0) {
            return content;
        }
        content.append(buffer, static_cast<std::size_t>(got));
        if (content.size() > limit) {  // grew while being read
            return failed(path, "larger than " + std::to_string(limit) + " bytes");
        }
    }
}

}  // namespace peergate::util
