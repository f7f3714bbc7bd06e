// SPDX-License-Identifier: Apache-2.0
#include "util/file_lock.hpp"

#include "util/bounded_read.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace peergate::util {

namespace {

constexpr std::chrono::milliseconds kRetryEvery{20};

Error lock_error(const std::string& path, const std::string& what) {
    return Error{ErrorCode::io, "cannot lock " + path + ": " + what};
}

}  // namespace

Expected<FileLock> lock_file(const std::string& path, std::chrono::milliseconds patience) {
    // O_NONBLOCK: a FIFO planted at the path must not block the open.
    FileDescriptor fd(
        ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644));
    if (fd.get() < 0) {
        return unexpected(
            lock_error(path, errno == ELOOP ? "it is a symbolic link" : std::strerror(errno)));
    }

    struct stat info {};

    if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
        return unexpected(lock_error(path, std::string("it is ") + file_kind(info.st_mode)));
    }
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            return unexpected(lock_error(path, std::strerror(errno)));
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return unexpected(lock_error(
                path, "another process holds it (" + std::to_string(patience.count()) + " ms)"));
        }
        std::this_thread::sleep_for(kRetryEvery);
    }
    return FileLock(std::move(fd));
}

}  // namespace peergate::util
