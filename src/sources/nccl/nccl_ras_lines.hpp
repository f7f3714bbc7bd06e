// SPDX-License-Identifier: Apache-2.0
// What NCCL's RAS subsystem (NCCL 2.24+) says in a log, line by line, with no state
// between lines (so a log cut anywhere, or read in pieces, reads the same). The shapes,
// from NCCL's src/ras sources and its RAS documentation (tests/fixtures/README.md):
//   INFO (NCCL_DEBUG_SUBSYS=RAS):
//     RAS declaring peer 10.0.0.2<28028> as DEAD; rasDeadPeersHash 0x...
//     RAS keep-alive timeout warning (5s) on socket connection with 10.0.0.2<28028>
//   an `ncclras` report pasted into the log (its Errors and Warnings sections):
//     1 job process is considered dead (unreachable via the RAS network)
//     Process 3487984 on node 172.16.64.213 managing GPU 5
//     Missing communicator data from 1 rank          The missing rank: 21
//     Encountered 2 communication timeouts while gathering communicator data
//     Communicator ranks have different status
//   an `ncclras -m` event:  [2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node ...
//   NCCL 2.31's RAS diagnostics, after "host:pid NCCL DIAG ":
//     [OK]   GPU inventory: 8x NVIDIA H100 per node consistent across 8 ranks in comm 0x1234
//     [INFO] NCCL environment: mismatch across 8 ranks in comm 0x1234 for NCCL_DEBUG
#pragma once

#include "model/nccl_diag.hpp"

#include <optional>
#include <string_view>

namespace peergate::sources::nccl {

// One record body or unprefixed line (or what follows "NCCL DIAG "); nullopt when it is none
// of the shapes above. The host is left empty.
std::optional<model::NcclRasLine> parse_ras_line(std::string_view body);

}  // namespace peergate::sources::nccl
