// SPDX-License-Identifier: Apache-2.0
// A NUMA node's CPUs as the kernel's mask: /sys/devices/system/node/node<N>/cpumap, 32-bit
// words in hex, most significant first ("00000000,00ffffff"). NCCL's topology file carries
// it verbatim as a CPU's affinity.
#pragma once

#include "sources/host/host_root.hpp"

#include <optional>
#include <string>

namespace peergate::sources::host {

// The mask, trimmed; nullopt when the node has no readable cpumap or it is not such a mask.
std::optional<std::string> read_numa_cpumap(const HostRoot& root, int node);

}  // namespace peergate::sources::host
