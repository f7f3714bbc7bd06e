// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the `nvidia-smi topo -m` parser. Beyond "no crash", it checks the
// parser's promise: whatever it accepts is a complete, valid matrix (never a guess).
#include "model/topology.hpp"
#include "sources/smi/topo_m_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto parsed = peergate::sources::smi::parse_topo_m(text);
    if (!parsed) {
        if (parsed.error().message.empty()) {
            std::abort();  // an unreadable answer must say why
        }
        return 0;
    }
    if (parsed->size() < 2 || !peergate::model::check_matrix(*parsed)) {
        std::abort();
    }
    const auto islands = parsed->nvlink_islands();
    std::size_t members = 0;
    for (const auto& island : islands) {
        members += island.size();
    }
    if (members != parsed->size()) {
        std::abort();  // every GPU is in exactly one island
    }
    return 0;
}
