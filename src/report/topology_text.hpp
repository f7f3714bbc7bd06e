// SPDX-License-Identifier: Apache-2.0
// The matrix as people read it: nvidia-smi's layout, NV# in green, PCIe classes in
// yellow/red on a colour terminal, then islands and NUMA affinity.
#pragma once

#include "model/discovery.hpp"

#include <string>

namespace peergate::report {

struct TextStyle {
    bool color = false;
    bool verbose = false;  // also list what each tier answered
};

std::string topology_to_text(const model::Discovery& discovery, const TextStyle& style);

}  // namespace peergate::report
