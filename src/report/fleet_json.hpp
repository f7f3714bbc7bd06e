// SPDX-License-Identifier: Apache-2.0
// The fleet's wire format: each node prints one line of JSON (`peergate.fleet_node/v1`),
// collected by srun (ECOSYSTEM.md §3.3: tasks print in any order, so the node names itself),
// and `fleet merge` reads the lines back, with or without srun --label's "N: " prefixes.
#pragma once

#include "model/fleet_node.hpp"
#include "report/export_facts.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace peergate::report {

// One line, no newline inside.
std::string fleet_node_line(const ExportFacts& facts, const std::string& hostname);

struct FleetLines {
    std::vector<model::FleetNode> nodes;
    std::vector<std::string> unreadable;  // "FILE:LINE: why", for lines that are not a record
};

// Every record in `text` (`source` names it in FleetNode::source and in errors). Lines that
// are empty or do not start with '{' (after an srun label) are srun's own chatter and skipped;
// a line that starts with '{' but is not a fleet_node/v1 record is unreadable.
FleetLines parse_fleet_lines(std::string_view text, const std::string& source);

}  // namespace peergate::report
