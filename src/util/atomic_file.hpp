// SPDX-License-Identifier: Apache-2.0
// Writes a whole file or nothing: a temporary beside the target, fsync, rename.
#pragma once

#include "util/expected.hpp"

#include <string>
#include <string_view>

namespace peergate::util {

// Replaces `path` with `content` atomically. On any failure the old file (or its
// absence) is left as it was and the temporary is removed.
Expected<void> write_file_atomically(const std::string& path, std::string_view content);

// Reads a whole file; the error names the path and the reason.
Expected<std::string> read_file(const std::string& path);

}  // namespace peergate::util
