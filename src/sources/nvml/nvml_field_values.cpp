// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_field_values.hpp"

#include <array>
#include <utility>

namespace peergate::nvml {

namespace {

struct FieldCounter {
    model::NvlinkCounter counter;
    unsigned field;
};

constexpr std::array<FieldCounter, 2> kFieldCounters{{
    {model::NvlinkCounter::link_recovery_events, NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS},
    {model::NvlinkCounter::effective_errors, NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS},
}};

template <typename Signed>
std::optional<std::uint64_t> non_negative(Signed n) {
    return n >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(n)) : std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> field_count(const nvmlFieldValue_t& value) {
    if (value.nvmlReturn != NVML_SUCCESS) {
        return std::nullopt;
    }
    switch (value.valueType) {
        case NVML_VALUE_TYPE_UNSIGNED_INT:
            return value.value.uiVal;
        case NVML_VALUE_TYPE_UNSIGNED_LONG:
            return value.value.ulVal;
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
            return value.value.ullVal;
        case NVML_VALUE_TYPE_UNSIGNED_SHORT:
            return value.value.usVal;
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
            return non_negative(value.value.sllVal);
        case NVML_VALUE_TYPE_SIGNED_INT:
            return non_negative(value.value.siVal);
        default:
            return std::nullopt;  // a double, or a type newer than this code: not a count
    }
}

void read_field_counters(NvmlCalls& nvml,
                         nvmlDevice_t device,
                         unsigned link,
                         model::NvlinkErrorCounts& counts) {
    if (nvml.api().nvmlDeviceGetFieldValues == nullptr) {
        return;
    }
    std::array<nvmlFieldValue_t, kFieldCounters.size()> values{};
    for (std::size_t i = 0; i < kFieldCounters.size(); ++i) {
        values[i].fieldId = kFieldCounters[i].field;
        values[i].scopeId = link;
    }
    if (nvml(nvml.api().nvmlDeviceGetFieldValues,
             device,
             static_cast<int>(values.size()),
             values.data()) != NVML_SUCCESS) {
        return;
    }
    for (std::size_t i = 0; i < kFieldCounters.size(); ++i) {
        if (const auto count = field_count(values[i])) {
            counts.value[static_cast<std::size_t>(kFieldCounters[i].counter)] = count;
        }
    }
}

}  // namespace peergate::nvml
