// SPDX-License-Identifier: Apache-2.0
// Reads a file someone else named (an environment variable, a configuration line) without
// letting it stall or swamp the caller: only a regular file, opened without blocking (a FIFO
// or a device such as /dev/zero is refused, not read), and only up to a limit.
#pragma once

#include "util/expected.hpp"

#include <cstddef>
#include <string>

namespace peergate::util {

// The whole file; an error naming the path when it is missing, not a regular file or larger
// than `limit` bytes.
Expected<std::string> read_regular_file(const std::string& path, std::size_t limit);

// The same, for a file whose content may decide for root (the verdict cache): read only if it
// is a regular file, not a link, owned by the effective user or root and writable by nobody
// else, in a directory with the same properties; each checked with fstat on what was opened,
// not by path (docs/security.md). The error says which property failed.
Expected<std::string> read_owned_file(const std::string& path, std::size_t limit);

// What a file that is not a regular one is, for the error ("a FIFO", "a directory", ...).
const char* file_kind(unsigned int mode);

}  // namespace peergate::util
