// SPDX-License-Identifier: Apache-2.0
// Runs nvidia-smi (no shell, a timeout, killed past it) and hands its text to the parsers.
#pragma once

#include "model/topology.hpp"
#include "util/env_map.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace peergate::sources::smi {

inline constexpr std::chrono::seconds kSmiTimeout{10};

// Runs `nvidia_smi args...` and returns its stdout when it exited 0 within `timeout`.
// The error says which binary, what it was asked, and how it failed (with its first
// output line: nvidia-smi prints "No devices were found" and driver mismatches on stdout,
// and after a mismatch its "NVML library version:" line).
util::Expected<std::string> run_smi(const std::string& nvidia_smi,
                                    const std::vector<std::string>& args,
                                    const util::EnvMap& env,
                                    std::chrono::milliseconds timeout = kSmiTimeout);

// Tier 2: `topo -m` joined with `--query-gpu=index,name,pci.bus_id,uuid` for names and
// bus ids. The topology is unreadable (an error) when topo -m is; a failed query only
// leaves names and bus ids empty.
util::Expected<model::Topology> smi_topology(const std::string& nvidia_smi,
                                             const util::EnvMap& env,
                                             std::chrono::milliseconds timeout = kSmiTimeout);

}  // namespace peergate::sources::smi
