// SPDX-License-Identifier: Apache-2.0
// Fuzz target: fleet merge reads lines other programs wrote (srun's output, hand-edited
// files); any bytes must parse into records or named unreadable lines, never crash.
#include "report/fleet/node_lines.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto lines = peergate::report::fleet::parse_fleet_lines(text, "fuzz");
    if (lines.nodes.size() + lines.unreadable.size() > size) {
        __builtin_trap();  // at most one record or error per line
    }
    return 0;
}
