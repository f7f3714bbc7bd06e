// SPDX-License-Identifier: Apache-2.0
// Which NUMA nodes a launched process should take its memory from: those of its GPUs
// (exec --bind-memory, the `--membind` half of the numactl line `place` prints). Pinned
// host buffers on the far node cross the inter-socket link on every host-to-device copy.
// Pure: the caller reads the allowed nodes and applies the answer.
#pragma once

#include "model/gpu.hpp"

#include <string>
#include <vector>

namespace peergate::policy::launch {

struct MemoryBinding {
    std::vector<int> nodes;  // ascending; empty: leave the memory policy as it is
    std::string why;         // what the nodes are, or why there is no binding
};

// The NUMA nodes of the GPUs `selection` (nvidia-smi indices), less the nodes this process
// may not use (`allowed`: its cpuset's mems). No binding when a selected GPU's node is
// unknown, or when none of the nodes is allowed.
MemoryBinding memory_binding(const std::vector<model::Gpu>& gpus,
                             const std::vector<int>& selection,
                             const std::vector<int>& allowed);

}  // namespace peergate::policy::launch
