// SPDX-License-Identifier: Apache-2.0
// Fills the seams: a flag beats its PEERGATE_* variable, which beats the default.
#pragma once

#include "pipeline/context.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::pipeline {

// The seams a caller names explicitly (the command line's --nvml-lib, --cuda-lib,
// --nvidia-smi, --host-root, --simulate); "" where not named.
struct SeamChoices {
    std::string nvml_lib;
    std::string cuda_lib;
    std::string nvidia_smi;
    std::string host_root;
    std::string simulate;
};

// Resolves ctx.seams from `chosen` and ctx.env. Under --simulate (or PEERGATE_SIMULATE) the
// seams point at the simulated NVML, CUDA driver and nvidia-smi and a materialised host
// root, and ctx.env gains what they read.
util::Expected<void> resolve_seams(Context& ctx, const SeamChoices& chosen = {});

}  // namespace peergate::pipeline
