// SPDX-License-Identifier: Apache-2.0
// `peergate nccl-log`'s section on NCCL's own checks: each edge NCCL 2.31's P2P diagnostics
// tested with its result and NCCL's words, the report's summary, and the RAS lines.
#pragma once

#include "model/nccl_log.hpp"
#include "policy/nccl/analysis.hpp"

#include <cstddef>
#include <string>

namespace peergate::report::nccl {

// Empty when the log holds no diagnostics or RAS line; `max_lines` rows per list at most.
std::string diagnostics_to_text(const model::NcclLog& log,
                                const policy::nccl::NcclAnalysis& analysis,
                                std::size_t max_lines);

}  // namespace peergate::report::nccl
