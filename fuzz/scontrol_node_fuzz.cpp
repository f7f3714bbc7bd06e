// SPDX-License-Identifier: Apache-2.0
// Fuzz target: whatever scontrol prints (another version, an error, a truncated pipe) must
// parse or be refused, never crash; a parsed node always has its name.
#include "sources/slurm/scontrol_node.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto node = peergate::sources::slurm::parse_scontrol_node(text);
    if (node && text.find("NodeName=") == std::string_view::npos) {
        __builtin_trap();
    }
    if (node) {
        (void)node->draining();
    }
    return 0;
}
