// SPDX-License-Identifier: Apache-2.0
// The topology as a Graphviz graph for `peergate export dot` (docs/ecosystem.md §4.1): GPUs as
// gpuN boxes in one cluster per NUMA node, NVLink edges labelled NV# with a width that grows
// with the link count, PCIe paths dashed and grey, pairs whose copies lost data in red, and
// the gate's verdict as the graph's title.
#pragma once

#include "report/exports/facts.hpp"

#include <string>
#include <string_view>

namespace peergate::report::exports {

std::string export_dot(const ExportFacts& facts);

// A DOT double-quoted string's contents: " and \ escaped (a written "\n" stays a line break).
std::string dot_escape(std::string_view text);

}  // namespace peergate::report::exports
