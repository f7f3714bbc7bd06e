// SPDX-License-Identifier: Apache-2.0
// GPUs in MIG mode. CUDA gives MIG instances no peer access and no IPC, so a multi-GPU job on
// them moves everything through host memory, whatever the NVLinks and capability queries say
// of the GPUs themselves; and a mode change waits for a GPU reset. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/mig_mode.hpp"

#include <map>
#include <vector>

namespace peergate::policy::doctor {

// `mig_enabled` (warning) naming the GPUs with MIG on, when two or more GPUs are examined (a
// job on one GPU has no peer traffic to lose); `mig_mode_pending` (info) naming GPUs whose
// mode changes at the next reset. `mig` is per nvidia-smi index; `examined` the number of
// GPUs examined.
std::vector<model::Finding> mig_findings(const std::map<int, model::MigMode>& mig,
                                         std::size_t examined);

}  // namespace peergate::policy::doctor
