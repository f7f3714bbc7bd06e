// SPDX-License-Identifier: Apache-2.0
// The simulated /proc/cpuinfo: one block per CPU up to the highest any GPU's affinity names,
// with the hypervisor flag and the CPU's kind as the machine file gives them
// (docs/machine-file.md, host).
#pragma once

#include "snapshot/machine_file.hpp"

#include <string>

namespace peergate::sim {

std::string cpuinfo_text(const snapshot::MachineFile& m);

}  // namespace peergate::sim
