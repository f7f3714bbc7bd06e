// SPDX-License-Identifier: Apache-2.0
// Fills the seams: a flag beats its PEERGATE_* variable, which beats the default.
#pragma once

#include "cli/invocation.hpp"
#include "util/expected.hpp"

namespace peergate::cli {

// Resolves inv.seams from inv.options and inv.env. Under --simulate (or
// PEERGATE_SIMULATE) the seams point at the simulated NVML, CUDA driver and nvidia-smi
// and a materialised host root, and inv.env gains what they read.
util::Expected<void> resolve_seams(Invocation& inv);

}  // namespace peergate::cli
