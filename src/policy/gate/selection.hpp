// SPDX-License-Identifier: Apache-2.0
// Index spaces and the selection (docs/gate-rules.md §4). Three spaces exist: CUDA ordinals
// (FASTEST_FIRST unless CUDA_DEVICE_ORDER=PCI_BUS_ID), ids in CUDA_VISIBLE_DEVICES, and
// nvidia-smi/NVML indices (PCI bus order). The matrix is only ever indexed with the last.
#pragma once

#include "model/gpu.hpp"
#include "policy/gate/types.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::policy::gate {

struct ResolvedSelection {
    std::vector<int> ids;     // nvidia-smi indices to gate
    std::string source;       // "gpus", "all", "cuda_visible_devices", "cuda_identity", "host"
    std::vector<int> absent;  // ids that are not on the host
    std::vector<std::string> unmapped;  // identity join: child GPUs missing from the matrix
    std::vector<std::string> notes;     // why the inherited mask was or was not used
};

// The host's GPUs: the input's list, else the topology's.
std::vector<model::Gpu> host_gpus(const GateInput& input);

// True when CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA ordinals then equal nvidia-smi indices.
bool order_pinned(const util::EnvMap& env);

// Which nvidia-smi indices the child will use, by the rules of §4: an explicit selection
// verbatim; else a numeric CUDA_VISIBLE_DEVICES only when the order is pinned; else every
// GPU on the host (UUID and MIG masks included). The identity join, when given, wins.
ResolvedSelection resolve_selection(const GateInput& input, const std::vector<model::Gpu>& host);

// The ids of an explicit list (Selection::Kind::list) that are not on the host. Empty where
// every id is there, where the selection is not a list, and where the host's GPUs are unknown:
// that is doubt, which the rules veto, not a mistyped id (docs/gate-rules.md §4).
std::vector<int> requested_absent(const GateInput& input);

// "GPU 9 is not on this host (its GPUs: 0, 1, 2, 3)": the gpu_absent veto's words, and those
// of the usage error that `gate`, `exec` and `watch` make of an absent id (issue 52).
std::string absent_text(const std::vector<int>& absent, const std::vector<model::Gpu>& host);

// The pinning guard: an explicit list needs the child's order pinned (by the launch, or
// inherited) or a uniformly NV# matrix. Returns the veto text, or nullopt.
std::optional<std::string> pinning_veto(const GateInput& input, const ResolvedSelection& resolved);

}  // namespace peergate::policy::gate
