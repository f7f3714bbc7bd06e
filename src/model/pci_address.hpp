// SPDX-License-Identifier: Apache-2.0
// A PCI function address. NVML prints 00000000:1B:00.0, the CUDA driver 0000:1B:00.0,
// sysfs 0000:1b:00.0 and nvidia-smi topo legends 1B:00.0: compare parsed values, never text.
#pragma once

#include "util/expected.hpp"

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace peergate::model {

struct PciAddress {
    std::uint32_t domain = 0;
    std::uint8_t bus = 0;
    std::uint8_t device = 0;    // 5 bits
    std::uint8_t function = 0;  // 3 bits

    // Accepts DDDDDDDD:BB:DD.F, DDDD:BB:DD.F and BB:DD.F, hex in either case.
    static util::Expected<PciAddress> parse(std::string_view text);

    // NVML's form: 00000000:1B:00.0.
    std::string to_nvml() const;
    // The kernel's form, used for sysfs paths: 0000:1b:00.0.
    std::string to_sysfs() const;

    friend auto operator<=>(const PciAddress&, const PciAddress&) = default;
};

}  // namespace peergate::model
