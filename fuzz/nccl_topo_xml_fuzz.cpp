// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the reader of NCCL topology files (NCCL_TOPO_FILE). Beyond "no crash":
// it reports no more GPUs than the text has <gpu tags, and a GPU with NVLinks only where the
// text has an <nvlink tag.
#include "sources/nccl/nccl_topo_xml.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

std::size_t occurrences(std::string_view text, std::string_view what) {
    std::size_t count = 0;
    for (auto at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) {
        ++count;
    }
    return count;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto gpus = peergate::sources::nccl::parse_nccl_topo_xml(text);
    if (!gpus) {
        return 0;
    }
    if (gpus->size() > occurrences(text, "<gpu")) {
        std::abort();
    }
    for (const auto& gpu : *gpus) {
        if ((gpu.lists_nvlinks || gpu.to_switch || !gpu.peers.empty()) &&
            occurrences(text, "<nvlink") == 0) {
            std::abort();
        }
    }
    return 0;
}
