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

// A temporary written and synced beside its target, not yet renamed onto it: removed when
// dropped uncommitted, so a failure anywhere leaves no temporary and no changed target.
class PreparedReplacement {
public:
    PreparedReplacement(FileDescriptor dir, std::string temp, std::string name, std::string path)
        : dir_(std::move(dir)),
          temp_(std::move(temp)),
          name_(std::move(name)),
          path_(std::move(path)) {}

    PreparedReplacement(PreparedReplacement&& other) noexcept
        : dir_(std::move(other.dir_)),
          temp_(std::move(other.temp_)),
          name_(std::move(other.name_)),
          path_(std::move(other.path_)) {
        other.temp_.clear();
    }

    PreparedReplacement(const PreparedReplacement&) = delete;
    PreparedReplacement& operator=(const PreparedReplacement&) = delete;
    PreparedReplacement& operator=(PreparedReplacement&&) = delete;

    ~PreparedReplacement() {
        if (!temp_.empty()) {
            ::unlinkat(dir_.get(), temp_.c_str(), 0);
        }
    }

    Expected<void> commit() {
        if (::renameat(dir_.get(), temp_.c_str(), dir_.get(), name_.c_str()) != 0) {
            return io_error("cannot rename the temporary file onto", path_);
        }
        temp_.clear();
        ::fsync(dir_.get());  // the rename itself survives a crash
        return {};
    }

private:
    FileDescriptor dir_;
    std::string temp_;  // empty once renamed (or moved from)
    std::string name_;
    std::string path_;
};

// Writes `content` to a new temporary in `dir`, synced, with `mode` where given.
Expected<PreparedReplacement> write_temporary(FileDescriptor dir,
                                              const PathInDirectory& target,
                                              const std::string& path,
                                              std::string_view content,
                                              std::optional<mode_t> mode) {
    std::string temp;
    const FileDescriptor fd(create_temporary(dir.get(), target.name, temp));
    if (fd.get() < 0) {
        return io_error("cannot create a temporary file beside", path);
    }
    PreparedReplacement prepared(std::move(dir), temp, target.name, path);
    if (mode) {
        ::fchmod(fd.get(), *mode);
    }
    if (!write_all(fd.get(), content) || ::fsync(fd.get()) != 0) {
        return io_error("cannot write", path);  // `prepared` removes the temporary
    }
    return prepared;
}

Expected<PreparedReplacement> prepare(const std::string& path,
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
    FileDescriptor directory(*dir);
    auto mode = existing_mode(directory.get(), target, path);
    if (!mode) {
        return unexpected(mode.error());
    }
    return write_temporary(
        std::move(directory), target, path, content, forced_mode ? forced_mode : *mode);
}

std::string named(const FileContent& file, const std::string& message) {
    return file.named_as.empty() ? message : file.named_as + ": " + message;
}

Expected<void> write_atomically(const std::string& path,
                                std::string_view content,
                                std::optional<mode_t> forced_mode) {
    auto prepared = prepare(path, content, forced_mode);
    return prepared ? prepared->commit() : unexpected(prepared.error());
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

Expected<void> write_files_atomically(const std::vector<FileContent>& files) {
    std::vector<PreparedReplacement> prepared;
    prepared.reserve(files.size());
    for (const auto& file : files) {
        auto one = prepare(file.path, file.content, std::nullopt);
        if (!one) {  // the temporaries so far are removed
            return unexpected(one.error().code, named(file, one.error().message));
        }
        prepared.push_back(std::move(*one));
    }
    for (std::size_t i = 0; i < prepared.size(); ++i) {
        if (auto renamed = prepared[i].commit(); !renamed) {
            return unexpected(renamed.error().code, named(files[i], renamed.error().message));
        }
    }
    return {};
}

Expected<std::string> read_file(const std::string& path) {
    return read_regular_file(path, kLargestReadFile);
}

}  // namespace peergate::util
