// SPDX-License-Identifier: Apache-2.0
// The kernel's CPU list syntax ("0-11,24-35", as in cpulist files, nvidia-smi's CPU
// affinity and taskset -c), read and written, and the cpumap mask of the same CPUs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::util {

// Inclusive ranges, as written; nullopt on an empty list, a stray character or lo > hi.
std::optional<std::vector<std::pair<int, int>>> parse_cpu_ranges(std::string_view list);

// The ranges sorted, overlapping and adjacent ones merged: {{24,35},{0,11},{12,12}} ->
// "0-12,24-35".
std::string format_cpu_ranges(std::vector<std::pair<int, int>> ranges);

// Single numbers in any order, repeats allowed: {3,1,2,7} -> "1-3,7".
std::string format_cpu_list(const std::vector<int>& numbers);

// The same CPUs as the kernel's cpumap files write them: 32-bit words in hex, most
// significant first ("0-3,32" -> "00000001,0000000f"); nullopt where `list` does not parse.
std::optional<std::string> cpu_mask_text(std::string_view list);

}  // namespace peergate::util
