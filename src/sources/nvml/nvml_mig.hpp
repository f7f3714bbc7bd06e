// SPDX-License-Identifier: Apache-2.0
// One GPU's MIG mode (model/mig_mode.hpp) through NVML.
#pragma once

#include "model/mig_mode.hpp"
#include "sources/nvml/nvml_calls.hpp"
#include "util/expected.hpp"

#include <optional>

namespace peergate::nvml {

// The current and pending mode; nullopt for a GPU without MIG (NOT_SUPPORTED) or a library
// without the call; any other failure is an error.
util::Expected<std::optional<model::MigMode>> read_mig_mode(NvmlCalls& nvml, nvmlDevice_t device);

}  // namespace peergate::nvml
