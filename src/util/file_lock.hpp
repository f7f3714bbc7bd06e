// SPDX-License-Identifier: Apache-2.0
// An exclusive advisory lock on a lock file beside the file it guards (flock), for a
// read-merge-write that two processes must not interleave: the verdict cache, where two probes
// of disjoint GPU sets would otherwise each write their own pairs over the other's
// (docs/security.md, "The verdict cache").
#pragma once

#include "util/expected.hpp"
#include "util/file_descriptor.hpp"

#include <chrono>
#include <string>

namespace peergate::util {

// Held while it lives; released when it goes out of scope (or the process ends).
class FileLock {
public:
    explicit FileLock(FileDescriptor fd) : fd_(std::move(fd)) {}

private:
    FileDescriptor fd_;
};

// Locks `path` (created 0644 when absent), waiting up to `patience` for another holder. The
// lock file is opened without following a final link and must be a regular file: a link or a
// FIFO planted there is an error, not something to open. Errors say which.
Expected<FileLock> lock_file(const std::string& path, std::chrono::milliseconds patience);

}  // namespace peergate::util
