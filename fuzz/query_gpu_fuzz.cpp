// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the `nvidia-smi --query-gpu=index,name,pci.bus_id,uuid` reader.
#include "sources/smi/query_gpu_parser.hpp"
#include "sources/smi/topo_m_parser.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto gpus = peergate::sources::smi::parse_query_gpu(text);
    if (!gpus) {
        return 0;
    }
    for (const auto& gpu : *gpus) {
        // Accepted lines always carry a non-negative index and a parsed bus id that prints.
        if (gpu.index < 0 || !gpu.pci || gpu.pci->to_nvml().size() != 16) {
            std::abort();
        }
    }
    return 0;
}
