// SPDX-License-Identifier: Apache-2.0
// How big a machine file may describe a machine: past these, a file is refused with what was
// too large, before the simulated parts or the readers build anything from it. A 10k-GPU file
// took 11 GB (its matrix is GPUs squared) and `cpu_affinity "0-100000000"` exhausted memory
// in every simulated command (issue 34; docs/machine-file.md, "Limits").
#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>

namespace peergate::snapshot {

inline constexpr std::size_t kMostGpus = 512;          // an NVL576 domain is 8 per node
inline constexpr std::size_t kMostNvlinksPerGpu = 64;  // Blackwell has 18
inline constexpr std::size_t kMostNics = 1024;
inline constexpr std::size_t kMostFaults = 1024;
inline constexpr int kLargestCpu = 16383;            // Linux's NR_CPUS is at most 8192 (MAXSMP)
inline constexpr std::size_t kLongestString = 4096;  // names, ids, paths; the kernel log aside

// Checks the sizes above; the error names the field and the limit.
util::Expected<void> check_limits(const nlohmann::json& doc);

}  // namespace peergate::snapshot
