// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry for the kernel's CPU list syntax ("0-11,24-35": cpulist files, nvidia-smi's
// CPU affinity, a cgroup's cpuset), which `exec --bind-cpus` and `place` read. Beyond "no
// crash": every accepted range is ordered and non-negative, the list written back reads
// back to the same CPUs, and its cpumap has one 8-digit word per 32 CPUs up to the highest.
#include "util/cpu_list.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data),
                                size);  // NOLINT: bytes as text
    const auto ranges = peergate::util::parse_cpu_ranges(text);
    if (!ranges) {
        return 0;
    }
    for (const auto& [lo, hi] : *ranges) {
        if (lo < 0 || lo > hi) {
            std::abort();
        }
    }
    const std::string written = peergate::util::format_cpu_ranges(*ranges);
    const auto again = peergate::util::parse_cpu_ranges(written);
    if (!again || peergate::util::format_cpu_ranges(*again) != written) {
        std::abort();
    }
    int highest = 0;
    for (const auto& [lo, hi] : *ranges) {
        highest = hi > highest ? hi : highest;
    }
    const auto mask = peergate::util::cpu_mask_text(text);
    const auto words = static_cast<std::size_t>(highest / 32 + 1);
    if (mask && mask->size() != words * 9 - 1) {
        std::abort();
    }
    return 0;
}
