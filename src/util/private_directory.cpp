// SPDX-License-Identifier: Apache-2.0
#include "util/private_directory.hpp"

#include "util/bounded_read.hpp"

#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace peergate::util {

namespace {

Unexpected refuse(const std::string& path, const std::string& why) {
    return unexpected(ErrorCode::io,
                      fmt::format("refusing to use {}: {}; remove it, or point TMPDIR at a "
                                  "directory of your own",
                                  path,
                                  why));
}

}  // namespace

Expected<void> make_private_directory(const std::string& path) {
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
        return unexpected(ErrorCode::io,
                          fmt::format("cannot create {}: {}", path, std::strerror(errno)));
    }

    struct stat st {};

    if (::lstat(path.c_str(), &st) != 0) {
        return unexpected(ErrorCode::io,
                          fmt::format("cannot inspect {}: {}", path, std::strerror(errno)));
    }
    if (!S_ISDIR(st.st_mode)) {
        return refuse(path, std::string("it is ") + file_kind(st.st_mode) + ", not a directory");
    }
    if (st.st_uid != ::geteuid()) {
        return refuse(
            path,
            fmt::format("it belongs to uid {}, not to this user (uid {})", st.st_uid, ::geteuid()));
    }
    if ((st.st_mode & 022) != 0) {  // read access for others harms nothing; writing does
        return refuse(
            path, fmt::format("its mode is {:04o}, so others may write in it", st.st_mode & 07777));
    }
    return {};
}

}  // namespace peergate::util
