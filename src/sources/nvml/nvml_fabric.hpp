// SPDX-License-Identifier: Apache-2.0
// One GPU's NVLink fabric registration (model/gpu_fabric.hpp) through NVML.
#pragma once

#include "model/gpu_fabric.hpp"
#include "sources/nvml/nvml_calls.hpp"
#include "util/expected.hpp"

#include <optional>

namespace peergate::nvml {

// The V form with the v2 structure, else the unversioned form (a library without V, or one
// that answers ARGUMENT_VERSION_MISMATCH). A GPU outside any fabric (PCIe cards, Ampere and
// older, a lone GPU) answers NOT_SUPPORTED, which is state not_supported; a library with
// neither entry point gives nullopt; any other failure is an error.
util::Expected<std::optional<model::GpuFabric>> read_fabric(NvmlCalls& nvml, nvmlDevice_t device);

}  // namespace peergate::nvml
