// SPDX-License-Identifier: Apache-2.0
// The I/O of `peergate nccl-log`: logs streamed in chunks into the parser, and the
// --topology file (peergate.topology/v1 JSON or `nvidia-smi topo -m` text).
#pragma once

#include "cli/nccl_log_parallel.hpp"
#include "model/topology.hpp"
#include "sources/nccl/nccl_log_parser.hpp"
#include "util/expected.hpp"

#include <string>
#include <string_view>

namespace peergate::cli {

// Streams `path` ("-" = stdin) through `parser` in fixed-size chunks, then ends the input.
// A regular file large enough for options.threads is parsed in pieces on several threads
// (nccl_log_parallel.hpp), with the same result.
util::Expected<void> stream_log_file(const std::string& path,
                                     sources::nccl::NcclLogParser& parser,
                                     const NcclReadOptions& options = {});

// Reads a peergate.topology/v1 document (topo --json) into a topology.
util::Expected<model::Topology> parse_topology_json(std::string_view text);

// Reads --topology FILE: JSON when it starts with '{', else `nvidia-smi topo -m` text.
util::Expected<model::Topology> read_topology_for_nccl(const std::string& path);

}  // namespace peergate::cli
