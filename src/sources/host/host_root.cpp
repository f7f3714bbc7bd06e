// SPDX-License-Identifier: Apache-2.0
#include "sources/host/host_root.hpp"

#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace peergate::sources::host {

namespace fs = std::filesystem;

std::string HostRoot::resolve(const std::string& absolute_path) const {
    if (root_.empty() || root_ == "/") {
        return absolute_path;
    }
    std::string base = root_;
    while (base.size() > 1 && base.back() == '/') {
        base.pop_back();
    }
    return absolute_path.starts_with('/') ? base + absolute_path : base + "/" + absolute_path;
}

util::Expected<std::string> HostRoot::read_text(const std::string& absolute_path) const {
    // sysfs attributes and /proc files are small: a FIFO, a device (cpuinfo -> /dev/zero) or
    // a file past the limit under a hostile root is unreadable, never waited on or read whole.
    constexpr std::size_t kLargestHostFile = std::size_t{16} << 20U;
    auto text = util::read_regular_file(resolve(absolute_path), kLargestHostFile);
    if (!text) {
        return util::unexpected(text.error().code, absolute_path + ": " + text.error().message);
    }
    return text;
}

util::Expected<std::vector<std::string>> HostRoot::list(const std::string& absolute_path) const {
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(resolve(absolute_path), ec)) {
        names.push_back(entry.path().filename().string());
    }
    if (ec) {
        return util::unexpected(util::ErrorCode::io, absolute_path + ": " + ec.message());
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool HostRoot::exists(const std::string& absolute_path) const {
    std::error_code ec;
    return fs::exists(resolve(absolute_path), ec);
}

}  // namespace peergate::sources::host
