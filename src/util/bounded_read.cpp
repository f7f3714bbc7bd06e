// SPDX-License-Identifier: Apache-2.0
#include "util/bounded_read.hpp"

#include "util/file_descriptor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace peergate::util {

namespace {

Unexpected failed(const std::string& path, const std::string& why) {
    return unexpected(ErrorCode::io, "cannot read " + path + ": " + why);
}

// Everything left in `fd`, at most `limit` bytes.
Expected<std::string> read_to_end(int fd, const std::string& path, std::size_t limit) {
    std::string content;
    char buffer[65536];
    for (;;) {
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
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

// Why `st` (of `what`) may not decide for this user, or "" when it may.
std::string untrusted_because(const struct stat& st, const std::string& what) {
    if (st.st_uid != ::geteuid() && st.st_uid != 0) {
        return what + " belongs to uid " + std::to_string(st.st_uid) +
               ", neither this user nor root";
    }
    if ((st.st_mode & 022) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        return what + " has mode " + mode + ", so others may write it";
    }
    return {};
}

}  // namespace

Expected<std::string> read_owned_file(const std::string& path, std::size_t limit) {
    const auto [dir, name] = split_directory(path);
    const FileDescriptor dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));

    struct stat st {};

    if (dir_fd.get() < 0 || ::fstat(dir_fd.get(), &st) != 0) {
        return failed(path, std::strerror(errno));
    }
    if (auto why = untrusted_because(st, "its directory"); !why.empty()) {
        return failed(path, "not trusted: " + why);
    }
    const FileDescriptor fd(
        ::openat(dir_fd.get(), name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0) {
        return failed(path,
                      errno == ELOOP ? "not trusted: it is a symbolic link" : std::strerror(errno));
    }
    if (::fstat(fd.get(), &st) != 0) {
        return failed(path, std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return failed(path,
                      std::string("not a regular file (it is ") + file_kind(st.st_mode) + ")");
    }
    if (auto why = untrusted_because(st, "it"); !why.empty()) {
        return failed(path, "not trusted: " + why);
    }
    return read_to_end(fd.get(), path, limit);
}

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
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
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
    return read_to_end(fd.get(), path, limit);
}

}  // namespace peergate::util
