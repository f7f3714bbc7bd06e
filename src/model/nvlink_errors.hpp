// SPDX-License-Identifier: Apache-2.0
// The error counters of one NVLink, as NVML keeps them since the driver loaded (or the GPU
// was reset). A link that replays or retrains still delivers every byte, so a capability
// query and a data probe both pass; the counters are where a marginal link shows first.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace peergate::model {

// nvmlNvLinkErrorCounter_t's order (nvml.h): DL_REPLAY 0, DL_RECOVERY 1, DL_CRC_FLIT 2,
// DL_CRC_DATA 3. Replay: a flit sent again after a CRC error; recovery: the link retrained.
enum class NvlinkCounter : std::uint8_t { replay, recovery, crc_flit, crc_data };

inline constexpr std::size_t kNvlinkCounters = 4;
inline constexpr std::array<std::string_view, kNvlinkCounters> kNvlinkCounterNames{
    "replay", "recovery", "crc_flit", "crc_data"};

// One link's counters; nullopt where NVML did not answer (NOT_SUPPORTED on some GPUs).
struct NvlinkErrorCounts {
    std::array<std::optional<std::uint64_t>, kNvlinkCounters> value;

    const std::optional<std::uint64_t>& operator[](NvlinkCounter counter) const {
        return value[static_cast<std::size_t>(counter)];
    }

    // Every counter answered, each zero (a link that counts no errors).
    bool none_counted() const {
        for (const auto& count : value) {
            if (count != 0U) {
                return false;
            }
        }
        return true;
    }

    // A link every counter of which is known to be zero.
    static NvlinkErrorCounts zero() {
        NvlinkErrorCounts counts;
        counts.value.fill(0);
        return counts;
    }

    friend bool operator==(const NvlinkErrorCounts&, const NvlinkErrorCounts&) = default;
};

// The counters of link `link` of one GPU.
struct LinkErrors {
    int link = 0;
    NvlinkErrorCounts counts;

    friend bool operator==(const LinkErrors&, const LinkErrors&) = default;
};

}  // namespace peergate::model
