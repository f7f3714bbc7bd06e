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
    // Each step moves to a later, dword-aligned offset, so the walk ends (a loop in a
    // corrupt list cannot hold it).
    while (at + 4 <= end) {
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
        const std::size_t next = header >> 20U;
        if (next <= at || next % 4 != 0) {
            break;
        }
        at = next;
    }
    return std::optional<model::AcsControl>{};
}

}  // namespace peergate::sources::host
