// SPDX-License-Identifier: Apache-2.0
// Which GPUs of a machine file a CUDA process sees, and in which ordinal order, under its
// CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES (docs/driver-facts.md): the simulated driver applies
// it once at cuInit, like the real one. Pure: the values come in, positions go out.
#pragma once

#include "snapshot/machine_file.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace peergate::sim {

// Positions into `gpus` in enumeration order before any mask: FASTEST_FIRST (the default,
// also for an unset or unknown value) sorts by compute capability, then memory size, both
// descending, ties in PCI bus order; "PCI_BUS_ID" sorts by PCI bus id.
std::vector<std::size_t> cuda_enumeration_order(const std::vector<snapshot::MachineGpu>& gpus,
                                                const std::optional<std::string>& device_order);

// Applies CUDA_VISIBLE_DEVICES to an enumeration order. Entries are ordinals into `order`
// or UUID prefixes ("GPU-3f2a"); parsing stops at the first bad, ambiguous or duplicate
// entry and the entries before it stay visible. nullopt (unset): all of `order`; an empty
// value: none.
std::vector<std::size_t> apply_visible_mask(const std::vector<snapshot::MachineGpu>& gpus,
                                            const std::vector<std::size_t>& order,
                                            const std::optional<std::string>& visible);

// The positions a CUDA process sees, in its ordinal order (both steps above).
std::vector<std::size_t> cuda_visible_positions(const std::vector<snapshot::MachineGpu>& gpus,
                                                const std::optional<std::string>& visible,
                                                const std::optional<std::string>& device_order);

// The machine as that process sees it: GPUs, matrices and bandwidth overrides reordered
// (and cut) to `positions`, so position p is CUDA ordinal p. GPU indices stay nvidia-smi's.
snapshot::MachineFile restrict_to_positions(const snapshot::MachineFile& machine,
                                            const std::vector<std::size_t>& positions);

}  // namespace peergate::sim
