// SPDX-License-Identifier: Apache-2.0
// gather's CUDA step: the driver's version, peer access and DMA-BUF support per GPU.
#pragma once

#include "pipeline/context.hpp"
#include "pipeline/gather_state.hpp"

namespace peergate::pipeline {

// The CUDA driver, behind the same watchdog: cuDriverGetVersion and
// cuDeviceCanAccessPeer per ordered pair in the machine's GPU order (joined by PCI bus id).
// An absent or hung driver leaves a note and the file's defaults.
void gather_from_cuda(const Context& ctx, GatherState& state);

}  // namespace peergate::pipeline
