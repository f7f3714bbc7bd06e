// SPDX-License-Identifier: Apache-2.0
// The P2P verdict as an ordered list of small, named, pure rules (docs/gate-rules.md §2's
// precedence, strongest first): DISABLE_P2P, DISABLE_TUNING, decision failures, the
// data-center name gate, more than one GPU, the user's opt-out, the probe verdict,
// FORCE_P2P, the NVLink name gate, the matrix, the index-space guards, every pair NV#.
// The off-value strip precedes them all; it is an environment action (gate_env_plan).
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

struct P2pVerdict {
    bool p2p = false;
    std::string rule;    // stable snake_case id
    std::string reason;  // the veto (suffix included), or what allowed P2P
};

// Runs the rules in order; the first that answers decides. Never fails: the last rule
// always answers.
P2pVerdict decide_p2p(const GateFacts& facts);

}  // namespace peergate::policy::gate
