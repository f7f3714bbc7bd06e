// SPDX-License-Identifier: Apache-2.0
// What the *at() calls of the trust-checked readers and writers work with (docs/security.md):
// a descriptor closed when it goes out of scope, and a path cut into the directory to open
// and the name to look up in it.
#pragma once

#include <unistd.h>

#include <string>

namespace peergate::util {

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}

    ~FileDescriptor() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }

    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

    FileDescriptor& operator=(FileDescriptor&&) = delete;

    int get() const { return fd_; }

private:
    int fd_;
};

struct PathInDirectory {
    std::string directory;  // "." when the path names none, "/" for a file at the root
    std::string name;
};

inline PathInDirectory split_directory(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return {".", path};
    }
    return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace peergate::util
