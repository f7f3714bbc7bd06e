// SPDX-License-Identifier: Apache-2.0
// Fuzz target: /proc/driver/nvidia/version text must parse without crashing; a module it
// returns has a version made of digits and dots, and the kernel-release comparison never
// crashes on the same bytes.
#include "sources/host/nvidia_version.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (const auto module = peergate::sources::host::parse_nvidia_version(text)) {
        if (module->version.empty() ||
            module->version.find_first_not_of("0123456789.") != std::string_view::npos) {
            __builtin_trap();
        }
    }
    (void)peergate::model::kernel_at_least(text, 5, 12);
    return 0;
}
