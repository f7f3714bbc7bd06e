// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the driver's /proc information text must parse without crashing, and a minor
// it returns is never negative.
#include "sources/host/device_minor.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto minor = peergate::sources::host::parse_device_minor(text);
    if (minor && *minor < 0) {
        __builtin_trap();
    }
    return 0;
}
