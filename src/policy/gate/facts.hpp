// SPDX-License-Identifier: Apache-2.0
// What the gate rules read (policy/gate/rules.hpp), computed once from the input: the
// control plane, the inherited P2P value, the host's GPUs and the resolved selection.
#pragma once

#include "model/gpu.hpp"
#include "policy/gate/control.hpp"
#include "policy/gate/selection.hpp"
#include "policy/gate/types.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::policy::gate {

// What every rule reads, computed once from the input.
struct GateFacts {
    const GateInput& input;
    ControlPlane control;
    InheritedP2p inherited;
    std::vector<model::Gpu> host;
    ResolvedSelection selection;

    explicit GateFacts(const GateInput& in);

    // Name of the GPU with nvidia-smi index `id`; nullopt when absent, "" when unknown.
    std::optional<std::string> name_of(int id) const;
    // True when the matrix shows an NV# path from `id` to another selected GPU (the
    // beyond rule of §1: NVLink-capable parts missing from the name list, V100, A6000 ...).
    bool nvlinked_to_selected_peer(int id) const;
    // Every resolved GPU is named as a data-center part (the tuning rule of §1).
    bool datacenter_selection() const;
    // Every ordered pair of the resolved selection is NV# in the matrix.
    bool all_pairs_nvlinked() const;
    // The first ordered pair that is not NV#, with its label; nullopt when none.
    std::optional<std::string> first_non_nvlink_pair() const;
};

}  // namespace peergate::policy::gate
