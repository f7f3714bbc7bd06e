// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the ACS reader must take any configuration-space bytes without crashing,
// reading out of bounds or looping.
#include "sources/host/acs.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view config(reinterpret_cast<const char*>(data), size);
    const auto acs = peergate::sources::host::parse_acs_control(config);
    if (acs && acs->has_value() && size < 0x108) {
        __builtin_trap();  // a control word needs the bytes it was read from
    }
    return 0;
}
