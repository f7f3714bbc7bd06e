// SPDX-License-Identifier: Apache-2.0
// Which CPUs a launched process should run on: those near its GPUs (exec --bind-cpus). A
// process fed from the far socket pays the inter-socket link on every host-to-device copy
// and every kernel launch. Pure: the caller reads the allowed CPUs and applies the answer.
#pragma once

#include "model/gpu.hpp"

#include <string>
#include <vector>

namespace peergate::policy::launch {

struct CpuBinding {
    std::vector<int> cpus;  // ascending; empty: leave the affinity as it is
    std::string why;        // what the CPUs are, or why there is no binding
};

// The union of the CPU affinity lists of the GPUs `selection` (nvidia-smi indices), less the
// CPUs this process may not use (`allowed`, its current affinity: a cgroup cpuset, a Slurm
// allocation). No binding when a selected GPU's list is unknown or unreadable, or when none
// of its CPUs is allowed.
CpuBinding cpu_binding(const std::vector<model::Gpu>& gpus,
                       const std::vector<int>& selection,
                       const std::vector<int>& allowed);

}  // namespace peergate::policy::launch
