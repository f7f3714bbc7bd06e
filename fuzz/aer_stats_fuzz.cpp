// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the AER statistics reader must take any text without crashing, and every
// count it keeps must come from a line of the text.
#include "sources/host/aer_stats.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto counters = peergate::sources::host::parse_aer_counters(text);
    for (const auto& [name, count] : counters.counts) {
        if (name.empty() || text.find(name) == std::string_view::npos) {
            __builtin_trap();  // a name the text does not hold
        }
    }
    (void)counters.sum();
    return 0;
}
