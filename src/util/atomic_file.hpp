// SPDX-License-Identifier: Apache-2.0
// Writes a whole file or nothing: a temporary beside the target, fsync, rename.
#pragma once

#include "util/expected.hpp"

#include <string>
#include <string_view>

namespace peergate::util {

// Replaces `path` with `content` atomically. On any failure the old file (or its
// absence) is left as it was and the temporary is removed. A new file gets the mode a
// shell redirect would give it (0666 less the umask); a replaced file keeps its mode; a
// symbolic link is followed, so the file it names is replaced and the link stays.
Expected<void> write_file_atomically(const std::string& path, std::string_view content);

// The temporary's mkostemp template beside `path`: hidden (".out.prom.tmp.XXXXXX"), so the
// readers that scan the directory skip it while it is written (node_exporter reads every
// *.prom, NFD every file not starting with '.').
std::string hidden_temp_template(const std::string& path);

// Where the replacement goes: `path`, or the file a symbolic link at `path` resolves to
// (a dangling link is itself replaced).
std::string replacement_target(const std::string& path);

// Reads a whole file; the error names the path and the reason.
Expected<std::string> read_file(const std::string& path);

}  // namespace peergate::util
