// SPDX-License-Identifier: Apache-2.0
// Writes a whole file or nothing: a temporary beside the target, fsync, rename.
#pragma once

#include "util/expected.hpp"

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::util {

// Replaces `path` with `content` atomically. On any failure the old file (or its
// absence) is left as it was and the temporary is removed. A new file gets the mode a
// shell redirect would give it (0666 less the umask); a replaced file keeps its mode.
// Only a regular file is ever replaced: a symbolic link at `path` or at its directory's last
// component, a FIFO, a device or a directory is refused with the reason (docs/security.md),
// and the temporary is made with O_EXCL|O_NOFOLLOW in the directory opened with O_NOFOLLOW.
Expected<void> write_file_atomically(const std::string& path, std::string_view content);

// The same, the file getting exactly `mode` whatever the umask and the mode it had: for a
// file whose permissions are part of why it is trusted (the verdict cache, 0644).
Expected<void> write_file_atomically(const std::string& path,
                                     std::string_view content,
                                     mode_t mode);

struct FileContent {
    std::string path;
    std::string content;
    std::string named_as;  // how the caller named it ("--also nfd"): its errors start with it
};

// Several files, all or none: each is written to its temporary and synced first, and they are
// renamed onto their targets only when every one was; on a failure before the renames no
// target changes and no temporary stays (a rename that fails after others succeeded is
// reported; renames cannot be undone). Each target is checked as write_file_atomically does.
Expected<void> write_files_atomically(const std::vector<FileContent>& files);

// The temporary's mkostemp template beside `path`: hidden (".out.prom.tmp.XXXXXX"), so the
// readers that scan the directory skip it while it is written (node_exporter reads every
// *.prom, NFD every file not starting with '.').
std::string hidden_temp_template(const std::string& path);

// The most read_file reads: past it a file is refused as too large, never read whole.
inline constexpr std::size_t kLargestReadFile = std::size_t{256} << 20U;

// Reads a whole regular file of at most kLargestReadFile bytes (util/bounded_read.hpp: a
// FIFO or a device is refused without blocking); the error names the path and the reason.
// Inputs with a tighter bound of their own call read_regular_file with it.
Expected<std::string> read_file(const std::string& path);

}  // namespace peergate::util
