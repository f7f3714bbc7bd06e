// SPDX-License-Identifier: Apache-2.0
// Records the host behind the seams as a machine file (peergate.machine/v1), so a user's
// report becomes a fixture: `peergate --simulate gathered.json` replays it.
#pragma once

#include "pipeline/context.hpp"
#include "pipeline/gather_state.hpp"
#include "snapshot/machine_file.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <string>

namespace peergate::pipeline {

// nvidia-smi: topo -m and --query-gpu texts (recorded verbatim), GPUs, matrix, memory,
// driver version, compute capability.
void gather_from_smi(const Context& ctx, GatherState& state);

// The host root: IOMMU mode and group type, hypervisor flag, kernel cmdline, boot id, and
// each GPU's PCI device id from sysfs.
void gather_from_host(const Context& ctx, GatherState& state);

// Runs every step in order: smi, NVML (gather_nvml.hpp), CUDA (gather_cuda.hpp), host. Fails (exit
// 2) when no NVIDIA tool listed the GPUs or none gave a usable matrix.
util::Expected<snapshot::MachineFile> gather_machine(
    const Context& ctx,
    const std::string& name,
    std::vector<std::string>& notes,
    std::chrono::milliseconds driver_watchdog = std::chrono::seconds(10));

}  // namespace peergate::pipeline
