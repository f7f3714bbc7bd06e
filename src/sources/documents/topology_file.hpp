// SPDX-License-Identifier: Apache-2.0
// The one reader of a saved topology, for every --from, --topology and --simulate FILE that
// wants a topology: a `nvidia-smi topo -m` text, a peergate.topology/v1 document (what
// `peergate topo --json` prints) or a machine file (peergate.machine/v1, what `gather`
// writes). JSON is told apart by its "schema"; anything else is read as topo -m text.
#pragma once

#include "model/discovery.hpp"
#include "model/topology.hpp"
#include "util/expected.hpp"

#include <string>
#include <string_view>

namespace peergate::sources::documents {

// A peergate.topology/v1 document: its gpus (index, name, pci_bus_id, uuid, numa_node,
// cpu_affinity) and matrix.
util::Expected<model::Topology> parse_topology_document(std::string_view text);

// The file at `path` in any of the three forms, as a topology (a machine file or document of
// one GPU included); the error names the file.
util::Expected<model::Topology> read_topology(const std::string& path);

// The same as a discovery of tier "file", as the tiers give one: a file of one GPU has no
// pair and so no matrix to trust (`lone_gpu`), and a file that cannot be read is an
// unreadable topology with the reason.
model::Discovery read_topology_file(const std::string& path);

}  // namespace peergate::sources::documents
