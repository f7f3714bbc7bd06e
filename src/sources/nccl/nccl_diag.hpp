// SPDX-License-Identifier: Apache-2.0
// NCCL 2.31's active P2P diagnostics (NCCL_RUN_DIAGNOSTICS=1), as NCCL's src/diagnostics/
// p2p.cc prints them (format strings read there; tests/fixtures/README.md says which release):
//   an INFO line per tested edge and phase, from the source rank's process:
//     Diagnostics P2P write srcRank=0 srcCudaDev=0 srcNvmlDev=0 dstRank=1 dstCudaDev=1
//       dstNvmlDev=1 path=NVL handle=CUMEM_POSIX_FD topoRead=0        (also import, read)
//     Diagnostics P2P skip ... reason=indirect          (the pair goes through another GPU)
//     Diagnostics P2P topo check failed srcRank=4 dstRank=2 result=2
//   and the report, printed to stdout by rank 0's process, outside NCCL_DEBUG:
//     host:pid NCCL DIAG [OK]   p2p: verified P2P access in both directions between every
//       GPU pair (56 peer accesses)
//     host:pid NCCL DIAG [INFO] p2p: only 52/56 GPU-to-GPU peer accesses passed verification
//     host:pid NCCL DIAG [INFO] p2p: write mismatch srcRank=.. path=.. handle=..
//       expected=0x.. got=0x.. verify=0x..; <NCCL's advice>       (one line per failed edge)
#pragma once

#include "model/nccl_diag.hpp"

#include <optional>
#include <string_view>

namespace peergate::sources::nccl {

// A line holding "NCCL DIAG": the host of the "host:pid" token before it ("" when there is
// none) and what follows the marker.
struct DiagMarker {
    std::string_view host;
    std::string_view rest;
};

// nullopt when the line has no "NCCL DIAG" marker (followed by a space or the line's end).
std::optional<DiagMarker> split_diag_marker(std::string_view line);

// A "Diagnostics P2P ..." INFO body, or what follows "NCCL DIAG " on a p2p report line;
// nullopt for anything else. The host is left empty.
std::optional<model::NcclDiagLine> parse_p2p_diagnostics(std::string_view body);

}  // namespace peergate::sources::nccl
