// SPDX-License-Identifier: Apache-2.0
// The I/O of `peergate nccl-log`: logs streamed in chunks into the parser (its --topology
// file is read by sources/documents/topology_file.hpp, as every saved topology is).
#pragma once

#include "model/topology.hpp"
#include "sources/nccl/nccl_log_parallel.hpp"
#include "sources/nccl/nccl_log_parser.hpp"
#include "util/expected.hpp"

#include <string>
#include <string_view>

namespace peergate::sources::nccl {

// Streams `path` ("-" = stdin) through `parser` in fixed-size chunks, then ends the input.
// A regular file large enough for options.threads is parsed in pieces on several threads
// (nccl_log_parallel.hpp), with the same result.
util::Expected<void> stream_log_file(const std::string& path,
                                     sources::nccl::NcclLogParser& parser,
                                     const NcclReadOptions& options = {});

}  // namespace peergate::sources::nccl
