// SPDX-License-Identifier: Apache-2.0
// What `scontrol show node NAME` says about a node's drain: its State= and its Reason=.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace peergate::sources::slurm {

struct NodeState {
    std::string name;    // NodeName=
    std::string state;   // State=, e.g. "IDLE+DRAIN"
    std::string reason;  // Reason= to the end of its line, e.g. "peergate: ... [root@...]"; "" none

    // DRAIN, DRAINING or DRAINED among the state's flags.
    bool draining() const;
};

// nullopt when the text holds no NodeName= (scontrol printed an error instead).
std::optional<NodeState> parse_scontrol_node(std::string_view text);

}  // namespace peergate::sources::slurm
