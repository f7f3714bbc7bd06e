// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the machine file reader (peergate.machine/v1: `--simulate FILE`, what
// `gather` writes). Beyond "no crash": a rejection says why, and whatever the reader accepts
// the writer turns back into text that reads as the same machine.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto parsed = peergate::snapshot::parse_machine(text);
    if (!parsed) {
        if (parsed.error().message.empty()) {
            std::abort();  // a rejected file must say what was wrong
        }
        return 0;
    }
    const auto again = peergate::snapshot::parse_machine(peergate::snapshot::to_json_text(*parsed));
    if (!again || !(*again == *parsed)) {
        std::abort();
    }
    return 0;
}
