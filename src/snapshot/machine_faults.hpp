// SPDX-License-Identifier: Apache-2.0
// A machine file's "faults": what each simulated part (NVML, nvidia-smi, the CUDA driver's
// calls, its peer copies, its peer kernels and their handshake flags) is to get wrong, checked
// per layer (docs/machine-file.md "faults").
#pragma once

#include "snapshot/machine_file.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>

namespace peergate::snapshot {

// faults[k]: its layer and effect known, its numbers in range.
util::Expected<MachineFault> parse_fault(const nlohmann::json& j, std::size_t k);

nlohmann::ordered_json fault_to_json(const MachineFault& fault);

}  // namespace peergate::snapshot
