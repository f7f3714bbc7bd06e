// SPDX-License-Identifier: Apache-2.0
// What gather has recorded so far, which each step adds to (pipeline/gather_machine.hpp).
#pragma once

#include "snapshot/machine_file.hpp"

#include <chrono>
#include <string>
#include <vector>

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

}  // namespace peergate::pipeline
