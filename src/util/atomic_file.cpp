// SPDX-License-Identifier: Apache-2.0
#include "util/atomic_file.hpp"

#include "util/bounded_read.hpp"
#include "util/file_descriptor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>

namespace peergate::util {

std::string hidden_temp_template(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
    return path.substr(0, base) + "." + path.substr(base) + ".tmp.XXXXXX";
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

// Opens a fresh temporary in `dir` as open(2) with 0666 would create it, so the umask and a
// directory's default ACL apply exactly as for a shell redirect (mkstemp's fixed 0600 would
// not). O_EXCL|O_NOFOLLOW: never an existing file, never through a link.
int create_temporary(int dir, const std::string& name, std::string& temp) {
    static constexpr std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
        temp = hidden_temp_template(name);
        for (std::size_t i = temp.size() - 6; i < temp.size(); ++i) {
            temp[i] = alphabet[entropy() % alphabet.size()];
        }
        const int fd =
            ::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) {
            return fd;
        }
    }
    return -1;
}

// What is at the target now, read without following a link: nothing, or a regular file
// (whose permission bits the replacement keeps, so an operator's chmod survives the next
// write); anything else is refused (docs/security.md: a planted link or a device node is
// never written through or replaced).
Expected<std::optional<mode_t>> existing_mode(int dir,
                                              const PathInDirectory& target,
                                              const std::string& path) {
    struct stat st {};

    if (::fstatat(dir, target.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) {
            return std::optional<mode_t>();
        }
        return io_error("cannot inspect", path);
    }
    if (S_ISLNK(st.st_mode)) {
        return unexpected(ErrorCode::io,
                          "refusing to write " + path +
                              ": it is a symbolic link, and peergate never writes through one "
                              "(name the file itself)");
    }
    if (!S_ISREG(st.st_mode)) {
        return unexpected(ErrorCode::io,
                          "refusing to replace " + path + ": not a regular file (it is " +
                              file_kind(st.st_mode) + ")");
    }
    return std::optional<mode_t>(st.st_mode & 0777);
}

// The directory the file goes in, opened without following a link at its last component.
Expected<int> open_directory(const PathInDirectory& target, const std::string& path) {
    const int fd =
        ::open(target.directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        return fd;
    }
    if (errno == ELOOP || errno == ENOTDIR) {
        struct stat st {};

        if (::lstat(target.directory.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
            return unexpected(ErrorCode::io,
                              "refusing to write " + path + ": its directory " + target.directory +
                                  " is a symbolic link, and peergate never writes through one");
        }
    }
    return io_error("cannot open the directory of", path);
}

// Writes `content` to a new temporary in `dir` and renames it onto the target.
Expected<void> replace_in(int dir,
                          const PathInDirectory& target,
                          const std::string& path,
                          std::string_view content,
                          std::optional<mode_t> mode) {
    std::string temp;
    const int fd = create_temporary(dir, target.name, temp);
    if (fd < 0) {
        return io_error("cannot create a temporary file beside", path);
    }
    if (mode) {
        ::fchmod(fd, *mode);
    }
    const bool written = write_all(fd, content) && ::fsync(fd) == 0;
    const int saved_errno = errno;
    const bool closed = ::close(fd) == 0;
    if (!written || !closed) {
        ::unlinkat(dir, temp.c_str(), 0);
        errno = written ? errno : saved_errno;
        return io_error("cannot write", path);
    }
    if (::renameat(dir, temp.c_str(), dir, target.name.c_str()) != 0) {
        const int rename_errno = errno;
        ::unlinkat(dir, temp.c_str(), 0);
        errno = rename_errno;
        return io_error("cannot rename the temporary file onto", path);
    }
    ::fsync(dir);  // the rename itself survives a crash
    return {};
}

}  // namespace

namespace {

Expected<void> write_atomically(const std::string& path,
                                std::string_view content,
                                std::optional<mode_t> forced_mode) {
    const PathInDirectory target = split_directory(path);
    if (target.name.empty() || target.name == "." || target.name == "..") {
        return unexpected(ErrorCode::invalid_input, "cannot write " + path + ": not a file name");
    }
    auto dir = open_directory(target, path);
    if (!dir) {
        return unexpected(dir.error());
    }
    const FileDescriptor directory(*dir);
    auto mode = existing_mode(directory.get(), target, path);
    if (!mode) {
        return unexpected(mode.error());
    }
    return replace_in(directory.get(), target, path, content, forced_mode ? forced_mode : *mode);
}

}  // namespace

Expected<void> write_file_atomically(const std::string& path, std::string_view content) {
    return write_atomically(path, content, std::nullopt);
}

Expected<void> write_file_atomically(const std::string& path,
                                     std::string_view content,
                                     mode_t mode) {
    return write_atomically(path, content, mode);
}

Expected<std::string> read_file(const std::string& path) {
    return read_regular_file(path, kLargestReadFile);
}

}  // namespace peergate::util
