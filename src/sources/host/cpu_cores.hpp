// SPDX-License-Identifier: Apache-2.0
// Slurm's core numbers: gres.conf's Cores= takes logical core indexes (hwloc's Core L#:
// cores numbered socket by socket), not the OS CPU numbers nvidia-smi's affinity lists. Read
// from each CPU's topology in sysfs (physical_package_id, core_id).
#pragma once

#include "sources/host/host_root.hpp"

#include <map>
#include <vector>

namespace peergate::sources::host {

struct CpuPlace {
    int cpu = 0;
    int package = 0;  // physical_package_id
    int core = 0;     // core_id: unique within its package only

    friend bool operator==(const CpuPlace&, const CpuPlace&) = default;
};

// Every cpuN under /sys/devices/system/cpu with a readable topology, in CPU order (an offline
// CPU may have none: it is left out). Empty when there is none.
std::vector<CpuPlace> cpu_places(const HostRoot& root);

// Per OS CPU number, its core's logical index: cores ordered by package, then by their
// first CPU, as hwloc orders them; hyperthreads of one core share it. Empty when the CPUs'
// topology cannot be read (then Cores= is left out rather than guessed).
std::map<int, int> logical_cores(const HostRoot& root);

}  // namespace peergate::sources::host
