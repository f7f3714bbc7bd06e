// SPDX-License-Identifier: Apache-2.0
#include "sources/host/acs.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace peergate::sources::host {

namespace {

constexpr std::size_t kExtendedStart = 0x100;
constexpr std::size_t kExtendedEnd = 0x1000;
constexpr std::uint16_t kAcsId = 0x000D;
constexpr std::size_t kAcsControlOffset = 6;
constexpr std::uint32_t kNextOffsetMask = 0xFFC;

std::uint32_t read_le(std::string_view bytes, std::size_t at, std::size_t width) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
        value |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    }
    return value;
}

}  // namespace

util::Expected<std::optional<model::AcsControl>> parse_acs_control(std::string_view config) {
    if (config.size() < kExtendedStart + 4) {
        return util::unexpected(
            util::ErrorCode::unavailable,
            fmt::format("only {} bytes of configuration space readable; the extended space "
                        "(from 0x100) needs root",
                        config.size()));
    }
    const std::size_t end = std::min(config.size(), kExtendedEnd);
    std::size_t at = kExtendedStart;
    // As Linux walks it (pci_find_next_ext_capability): the next offset's two low bits are
    // reserved and masked off, the list may point back below itself, and a step count (one
    // capability per 8 bytes at most) ends a loop in a corrupt list.
    for (std::size_t steps = (kExtendedEnd - kExtendedStart) / 8; steps > 0 && at + 4 <= end;
         --steps) {
        const std::uint32_t header = read_le(config, at, 4);
        if (header == 0 || header == 0xFFFFFFFFU) {
            break;  // no (more) extended capabilities
        }
        if ((header & 0xFFFFU) == kAcsId) {
            if (at + kAcsControlOffset + 2 > end) {
                break;
            }
            return std::optional(model::AcsControl{
                .bits = static_cast<std::uint16_t>(read_le(config, at + kAcsControlOffset, 2))});
        }
        at = (header >> 20U) & kNextOffsetMask;
        if (at < kExtendedStart) {
            break;  // 0 ends the list; anything else below 0x100 is corrupt
        }
    }
    return std::optional<model::AcsControl>{};
}

}  // namespace peergate::sources::host
