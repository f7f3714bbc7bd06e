// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the reader of `topo --json` documents (peergate.topology/v1, as
// `nccl-log --topology FILE` takes them). Beyond "no crash": a rejection says why, and what
// it accepts is a complete, valid matrix whose islands hold every GPU once.
#include "model/topology.hpp"
#include "sources/documents/topology_file.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto parsed = peergate::sources::documents::parse_topology_document(text);
    if (!parsed) {
        if (parsed.error().message.empty()) {
            std::abort();
        }
        return 0;
    }
    if (!peergate::model::check_matrix(*parsed)) {
        std::abort();
    }
    std::size_t members = 0;
    for (const auto& island : parsed->nvlink_islands()) {
        members += island.size();
    }
    if (members != parsed->size()) {
        std::abort();
    }
    return 0;
}
