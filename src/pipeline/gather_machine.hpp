// SPDX-License-Identifier: Apache-2.0
// Records the host behind the seams as a machine file (peergate.machine/v1), so a user's
// report becomes a fixture: `peergate --simulate gathered.json` replays it.
#pragma once

#include "pipeline/context.hpp"
#include "snapshot/machine_file.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <string>

namespace peergate::pipeline {

// One step of the recording: adds what one source knows to the machine. A step that finds
// its source absent leaves the machine as it was and says why in `notes`.
struct GatherState {
    snapshot::MachineFile machine;
    std::vector<std::string> notes;  // what a source could not tell, for the user
    bool have_gpus = false;          // some NVIDIA tool listed the GPUs
    std::chrono::milliseconds driver_watchdog{
        10'000};               // NVML and CUDA driver calls cannot be cancelled
    int cuda_open_status = 0;  // the CUresult that kept the CUDA driver from opening; 0 none
};

// nvidia-smi: topo -m and --query-gpu texts (recorded verbatim), GPUs, matrix, memory,
// driver version, compute capability.
void gather_from_smi(const Context& ctx, GatherState& state);

// NVML (gather_nvml.cpp), through one session behind the tier's watchdog: each GPU's
// NVLinks and link slots, the nvswitch flag, and the P2P status matrices per caps index;
// without nvidia-smi also the GPUs and matrix. A hung or absent NVML leaves a note.
void gather_from_nvml(const Context& ctx, GatherState& state);

// The same from a record already read (the doctor's, from the topology tier's session), or
// the note saying why there is none.
void gather_from_nvml_record(util::Expected<nvml::NvmlRecord> record, GatherState& state);

// The CUDA driver (gather_cuda.cpp), behind the same watchdog: cuDriverGetVersion and
// cuDeviceCanAccessPeer per ordered pair in the machine's GPU order (joined by PCI bus id).
// An absent or hung driver leaves a note and the file's defaults.
void gather_from_cuda(const Context& ctx, GatherState& state);

// The host root: IOMMU mode and group type, hypervisor flag, kernel cmdline, boot id, and
// each GPU's PCI device id from sysfs.
void gather_from_host(const Context& ctx, GatherState& state);

// Runs every step in order: smi, NVML, CUDA, host. Fails (exit 2) when no NVIDIA tool listed
// the GPUs or none gave a usable matrix.
util::Expected<snapshot::MachineFile> gather_machine(
    const Context& ctx,
    const std::string& name,
    std::vector<std::string>& notes,
    std::chrono::milliseconds driver_watchdog = std::chrono::seconds(10));

}  // namespace peergate::pipeline
