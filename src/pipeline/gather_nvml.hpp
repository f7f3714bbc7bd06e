// SPDX-License-Identifier: Apache-2.0
// gather's NVML step: what this host's NVML answered, recorded explicitly in the machine file.
#pragma once

#include "pipeline/context.hpp"
#include "pipeline/gather_state.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "util/expected.hpp"

namespace peergate::pipeline {

// NVML, through one session behind the tier's watchdog: each GPU's
// NVLinks and link slots, the nvswitch flag, and the P2P status matrices per caps index;
// without nvidia-smi also the GPUs and matrix. A hung or absent NVML leaves a note.
void gather_from_nvml(const Context& ctx, GatherState& state);

// The same from a record already read (the doctor's, from the topology tier's session), or
// the note saying why there is none.
void gather_from_nvml_record(util::Expected<nvml::NvmlRecord> record, GatherState& state);

}  // namespace peergate::pipeline
