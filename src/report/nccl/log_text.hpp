// SPDX-License-Identifier: Apache-2.0
// `peergate nccl-log`: the short human summary.
#pragma once

#include "report/nccl/log_report.hpp"

#include <cstddef>
#include <string>

namespace peergate::report::nccl {

// A table of rank pairs x transport, then the findings. `max_pairs` rows at most.
std::string nccl_log_to_text(const NcclLogReport& report, bool color, std::size_t max_pairs);

}  // namespace peergate::report::nccl
