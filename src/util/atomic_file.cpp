// SPDX-License-Identifier: Apache-2.0
#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace peergate::util {

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

}  // namespace

std::string hidden_temp_template(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
    return path.substr(0, base) + "." + path.substr(base) + ".tmp.XXXXXX";
}

Expected<void> write_file_atomically(const std::string& path, std::string_view content) {
    std::string temp = hidden_temp_template(path);
    const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) {
        return io_error("cannot create a temporary file beside", path);
    }
    const bool written = write_all(fd, content) && ::fsync(fd) == 0;
    const int saved_errno = errno;
    const bool closed = ::close(fd) == 0;
    if (!written || !closed) {
        ::unlink(temp.c_str());
        errno = written ? errno : saved_errno;
        return io_error("cannot write", path);
    }
    // mkostemp creates 0600; output files are ordinary documents.
    ::chmod(temp.c_str(), 0644);
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int rename_errno = errno;
        ::unlink(temp.c_str());
        errno = rename_errno;
        return io_error("cannot rename the temporary file onto", path);
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
