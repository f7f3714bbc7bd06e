// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the reader of `peergate bench --json` results (`place --bandwidth`,
// `doctor --bandwidth`). Beyond "no crash": a rejection says why, and every sample accepted
// names two different GPUs and carries a rate the placement may weigh with (finite, >= 0).
#include "sources/documents/bench_file.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

bool usable_rate(double gbps) {
    return std::isfinite(gbps) && gbps >= 0.0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto file = peergate::sources::documents::parse_bench_file(text);
    if (!file) {
        if (file.error().message.empty()) {
            std::abort();
        }
        return 0;
    }
    for (const auto& s : file->samples) {
        if (s.src < 0 || s.dst < 0 || s.src == s.dst || !usable_rate(s.gbps) ||
            (s.staged_gbps && !usable_rate(*s.staged_gbps))) {
            std::abort();
        }
    }
    return 0;
}
