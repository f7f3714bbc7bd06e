// SPDX-License-Identifier: Apache-2.0
// exec --bind-cpus and --bind-memory: this process, and so the command it becomes, runs on
// the CPUs near the GPUs gated and allocates from their NUMA nodes. Hints, not safety rules:
// where a binding cannot be made the command still starts, and `why` says why.
#pragma once

#include "policy/gate/gate.hpp"

#include <string>
#include <vector>

namespace peergate::pipeline {

struct BindingOutcome {
    bool bound = false;
    std::string why;  // what was bound, or why nothing was
};

// Binds this process to the CPUs near `selection`'s GPUs, as `gathered` (what the gate read)
// describes them.
BindingOutcome bind_cpus_near_gpus(const policy::gate::GateInput& gathered,
                                   const std::vector<int>& selection);

// Binds this process's future allocations to `selection`'s GPUs' NUMA nodes.
BindingOutcome bind_memory_near_gpus(const policy::gate::GateInput& gathered,
                                     const std::vector<int>& selection);

}  // namespace peergate::pipeline
