// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the reader of vLLM's P2P cache files
// (gpu_p2p_access_cache_for_<devices>.json). Beyond "no crash": every entry it reports as
// working is a key of the document whose value is true.
#include "sources/host/vllm_p2p_cache.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto works = peergate::sources::host::parse_vllm_p2p_cache(text);
    if (!works) {
        return 0;
    }
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    for (const auto& key : *works) {
        if (!doc.is_object() || !doc.contains(key) || doc[key] != true) {
            std::abort();
        }
    }
    return 0;
}
