// SPDX-License-Identifier: Apache-2.0
#include "sources/host/host_name.hpp"

#include <unistd.h>

#include <array>

namespace peergate::sources::host {

std::string host_name() {
    std::array<char, 256> name{};  // HOST_NAME_MAX is 64 on Linux; the last byte stays NUL
    if (::gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') {
        return "localhost";
    }
    return std::string(name.data());
}

std::string short_host_name() {
    const std::string full = host_name();
    return full.substr(0, full.find('.'));
}

}  // namespace peergate::sources::host
