// SPDX-License-Identifier: Apache-2.0
// The fleet's wire format: each node prints one line of JSON (`peergate.fleet_node/v1`),
// collected by srun (docs/ecosystem.md §3.3: tasks print in any order, so the node names itself),
// and `fleet merge` reads the lines back, with or without srun --label's "N: " prefixes.
#pragma once

#include "model/fleet_node.hpp"
#include "report/exports/facts.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::report::fleet {

// srun forwards a task's output in messages of at most 1024 bytes and keeps only lines that
// fit in one message whole (Slurm's SLURM_IO_MAX_MSG_LEN): a longer line can be cut and
// another node's output put in the middle of it. No line printed here is longer.
inline constexpr std::size_t kFleetMaxLine = 1000;

// The record as one line when it fits in kFleetMaxLine; else as `peergate.fleet_node_part/v1`
// lines (`node`, `id`, `part`, `parts`, `data`: a base64 slice of the record), which the
// reader puts back together. `id` tells one run's parts from another's.
std::vector<std::string> fleet_node_lines(const exports::ExportFacts& facts,
                                          const std::string& hostname,
                                          const std::string& id);

// The record as one line, whatever its length (for readers other than srun).
std::string fleet_node_line(const exports::ExportFacts& facts, const std::string& hostname);

struct FleetLines {
    std::vector<model::FleetNode> nodes;
    std::vector<std::string> unreadable;  // "FILE:LINE: why", for lines that are not a record
};

// Every record in `text` (`source` names it in FleetNode::source and in errors), whole or in
// parts. Lines that are empty or do not start with '{' (after an srun label) are srun's own
// chatter and skipped; a line that starts with '{' but is not a record or a part, and a
// record whose parts did not all arrive, are unreadable.
FleetLines parse_fleet_lines(std::string_view text, const std::string& source);

}  // namespace peergate::report::fleet
