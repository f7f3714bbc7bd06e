// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the kernel log reader must take any bytes without crashing or hanging.
#include "sources/host/kernel_log_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto events = peergate::sources::host::parse_kernel_log(text);
    for (const auto& event : events) {
        if (event.count < 1) {
            __builtin_trap();  // every group holds at least the line that made it
        }
        if ((event.kind == peergate::model::KernelEventKind::pcie_aer) != event.aer.has_value() ||
            (event.aer && event.aer->errors.size() > 32)) {
            __builtin_trap();  // an AER report names at most its register's 32 bits
        }
    }
    return 0;
}
