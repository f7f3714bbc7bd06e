// SPDX-License-Identifier: Apache-2.0
// Renders a gate decision: peergate.gate/v1 JSON, one line per fact for people, and
// lines a POSIX shell can eval.
#pragma once

#include "policy/gate/types.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace peergate::report::gate {

// peergate.gate/v1 (docs/contracts.md): schema, selection, p2p, veto, set, unset, kept, warnings,
// topology_source, iommu; plus profile, rule, reason, selection_source and the per-variable
// reasons under "why"; then node_usable, node_rule and node_reason (whether any CUDA program
// can start here, policy/gate/node_usability.hpp).
nlohmann::ordered_json gate_to_json(const policy::gate::GateDecision& decision);

// What was decided and why, one line each.
std::string gate_to_text(const policy::gate::GateDecision& decision);

// `unset V` and `export V='...'` lines, decision and warnings as comments.
std::string gate_to_shell(const policy::gate::GateDecision& decision);

// One line for a launcher's log: "P2P allowed|vetoed: <reason>; set A=1 B=2; unset C".
std::string gate_to_log_line(const policy::gate::GateDecision& decision);

// Single-quotes `value` for a POSIX shell: ' becomes '\''.
std::string shell_quote(std::string_view value);

}  // namespace peergate::report::gate
