// SPDX-License-Identifier: Apache-2.0
#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace peergate::util {

std::string hidden_temp_template(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
    return path.substr(0, base) + "." + path.substr(base) + ".tmp.XXXXXX";
}

std::string replacement_target(const std::string& path) {
    struct stat st {};

    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
        return path;
    }
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) {
        return path;  // dangling: the link itself is replaced (never a file it names)
    }
    std::string target = resolved;
    std::free(resolved);
    return target;
}

namespace {

Unexpected io_error(const std::string& what, const std::string& path) {
    return unexpected(ErrorCode::io, what + " " + path + ": " + std::strerror(errno));
}

bool write_all(int fd, std::string_view content) {
    while (!content.empty()) {
        const ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        content.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Opens a fresh temporary beside `target` as open(2) with 0666 would create it, so the
// umask and a directory's default ACL apply exactly as for a shell redirect (mkstemp's
// fixed 0600 would not).
int create_temporary(const std::string& target, std::string& temp) {
    static constexpr std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
        temp = hidden_temp_template(target);
        for (std::size_t i = temp.size() - 6; i < temp.size(); ++i) {
            temp[i] = alphabet[entropy() % alphabet.size()];
        }
        const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) {
            return fd;
        }
    }
    return -1;
}

// An existing target's permission bits carry over to its replacement, so an operator's
// chmod survives the next write (the owner does not: the writer owns the new file).
void keep_existing_mode(int fd, const std::string& target) {
    struct stat st {};

    if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        ::fchmod(fd, st.st_mode & 0777);
    }
}

}  // namespace

Expected<void> write_file_atomically(const std::string& path, std::string_view content) {
    const std::string target = replacement_target(path);
    std::string temp;
    const int fd = create_temporary(target, temp);
    if (fd < 0) {
        return io_error("cannot create a temporary file beside", target);
    }
    keep_existing_mode(fd, target);
    const bool written = write_all(fd, content) && ::fsync(fd) == 0;
    const int saved_errno = errno;
    const bool closed = ::close(fd) == 0;
    if (!written || !closed) {
        ::unlink(temp.c_str());
        errno = written ? errno : saved_errno;
        return io_error("cannot write", target);
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) {
        const int rename_errno = errno;
        ::unlink(temp.c_str());
        errno = rename_errno;
        return io_error("cannot rename the temporary file onto", target);
    }
    return {};
}

Expected<std::string> read_file(const std::string& path) {
    struct stat st {};

    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return unexpected(ErrorCode::io, "cannot read " + path + ": it is a directory");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return io_error("cannot open", path);
    }
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) {
        return io_error("cannot read", path);
    }
    return content.str();
}

}  // namespace peergate::util
