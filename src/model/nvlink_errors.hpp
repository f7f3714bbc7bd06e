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

// The first four in nvmlNvLinkErrorCounter_t's order (nvml.h): DL_REPLAY 0, DL_RECOVERY 1,
// DL_CRC_FLIT 2, DL_CRC_DATA 3. Replay: a flit sent again after a CRC error; recovery: the
// link retrained. NVLink5 (Blackwell) keeps other counters, read as NVML field values per
// link: link_recovery_events (the link retrained, NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_
// EVENTS) and effective_errors (what forward error correction could not repair,
// NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS). A GPU answers one set or the other.
enum class NvlinkCounter : std::uint8_t {
    replay,
    recovery,
    crc_flit,
    crc_data,
    link_recovery_events,
    effective_errors
};

inline constexpr std::size_t kNvlinkCounters = 6;
inline constexpr std::array<std::string_view, kNvlinkCounters> kNvlinkCounterNames{
    "replay", "recovery", "crc_flit", "crc_data", "link_recovery_events", "effective_errors"};

// Which counters a GPU keeps: the DL ones (every NVLink GPU before Blackwell) or NVLink5's.
enum class NvlinkCounterSet : std::uint8_t { dl, nvlink5 };

inline constexpr bool in_set(NvlinkCounter counter, NvlinkCounterSet set) {
    return (counter <= NvlinkCounter::crc_data) == (set == NvlinkCounterSet::dl);
}

// Counters that count the link retraining.
inline constexpr bool counts_retraining(NvlinkCounter counter) {
    return counter == NvlinkCounter::recovery || counter == NvlinkCounter::link_recovery_events;
}

// One link's counters; nullopt where NVML did not answer (the other generation's counters,
// NOT_SUPPORTED on some GPUs).
struct NvlinkErrorCounts {
    std::array<std::optional<std::uint64_t>, kNvlinkCounters> value;

    const std::optional<std::uint64_t>& operator[](NvlinkCounter counter) const {
        return value[static_cast<std::size_t>(counter)];
    }

    // Some counter answered and none counts above zero (a link that counts no errors); a
    // counter this GPU does not keep says nothing either way.
    bool none_counted() const {
        bool answered = false;
        for (const auto& count : value) {
            if (count && *count > 0U) {
                return false;
            }
            answered = answered || count.has_value();
        }
        return answered;
    }

    // A clean link of a GPU that keeps `set`: those counters zero, the others unanswered.
    static NvlinkErrorCounts clean(NvlinkCounterSet set) {
        NvlinkErrorCounts counts;
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            if (in_set(static_cast<NvlinkCounter>(k), set)) {
                counts.value[k] = 0;
            }
        }
        return counts;
    }

    // The set these answers come from: NVLink5 where an NVLink5 counter answered and no DL
    // one did, else DL.
    NvlinkCounterSet answered_set() const {
        bool dl = false;
        bool nvlink5 = false;
        for (std::size_t k = 0; k < kNvlinkCounters; ++k) {
            if (!value[k]) {
                continue;
            }
            if (in_set(static_cast<NvlinkCounter>(k), NvlinkCounterSet::dl)) {
                dl = true;
            } else {
                nvlink5 = true;
            }
        }
        return nvlink5 && !dl ? NvlinkCounterSet::nvlink5 : NvlinkCounterSet::dl;
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
