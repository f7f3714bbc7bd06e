// SPDX-License-Identifier: Apache-2.0
// NVLink error counters NVML keeps as field values (nvmlDeviceGetFieldValues, one value per
// link named by scopeId): NVLink5 on Blackwell, whose links keep no DL replay or CRC counts.
#pragma once

#include "model/nvlink_errors.hpp"
#include "sources/nvml/nvml_calls.hpp"

#include <cstdint>
#include <optional>

namespace peergate::nvml {

// The count a field value holds: nullopt unless NVML answered it and it is a whole,
// non-negative number.
std::optional<std::uint64_t> field_count(const nvmlFieldValue_t& value);

// Adds link `link`'s NVLink5 counters to `counts`; those NVML does not answer (no field
// values in an older library, NOT_SUPPORTED before Blackwell) stay as they are.
void read_field_counters(NvmlCalls& nvml,
                         nvmlDevice_t device,
                         unsigned link,
                         model::NvlinkErrorCounts& counts);

}  // namespace peergate::nvml
