// SPDX-License-Identifier: Apache-2.0
// Reads the host's /sys and /proc under a root directory, so a recorded or simulated
// host is read by the same code as the live one (hwloc's HWLOC_FSROOT method).
#pragma once

#include "util/expected.hpp"

#include <string>
#include <vector>

namespace peergate::sources::host {

class HostRoot {
public:
    explicit HostRoot(std::string root) : root_(std::move(root)) {}

    // The real path under the root: "/sys/kernel/x" under "/tmp/h" is "/tmp/h/sys/kernel/x".
    std::string resolve(const std::string& absolute_path) const;

    // A small text file (sysfs attribute, /proc entry); the error names the host path.
    util::Expected<std::string> read_text(const std::string& absolute_path) const;

    // Names in a directory, sorted; an error when it cannot be listed.
    util::Expected<std::vector<std::string>> list(const std::string& absolute_path) const;

    bool exists(const std::string& absolute_path) const;

    const std::string& root() const { return root_; }

private:
    std::string root_;
};

}  // namespace peergate::sources::host
