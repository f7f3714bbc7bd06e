// SPDX-License-Identifier: Apache-2.0
// Slurm's core numbers: gres.conf's Cores= takes logical core indexes (hwloc's Core L#:
// cores numbered socket by socket), not the OS CPU numbers nvidia-smi's affinity lists. Read
// from each CPU's topology in sysfs (physical_package_id, core_id).
#pragma once

#include "sources/host/host_root.hpp"

#include <map>

namespace peergate::sources::host {

// Per OS CPU number, its core's logical index: cores ordered by package, then by their
// first CPU, as hwloc orders them; hyperthreads of one core share it. Empty when the CPUs'
// topology cannot be read (then Cores= is left out rather than guessed).
std::map<int, int> logical_cores(const HostRoot& root);

}  // namespace peergate::sources::host
