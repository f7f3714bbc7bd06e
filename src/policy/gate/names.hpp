// SPDX-License-Identifier: Apache-2.0
// The name gates of docs/gate-rules.md §1: word-bounded, case-insensitive GPU name lists.
#pragma once

#include <string_view>

namespace peergate::policy::gate {

// Data-center parts, for which llama.cpp's tuning variables apply
// (a100 a30 h100 h200 h800 gh200 b200 b100 b300 gb200 gb300 l40 l40s l4
// "rtx pro 6000" "rtx 6000 ada"). "RTX A1000 Laptop GPU" is not an a100.
bool is_datacenter_name(std::string_view gpu_name);

// Parts with an NVLink connector: the data-center list minus the PCIe-only
// l40 l40s l4 "rtx pro 6000" "rtx 6000 ada". Necessary, never sufficient, for P2P.
bool is_nvlink_capable_name(std::string_view gpu_name);

}  // namespace peergate::policy::gate
