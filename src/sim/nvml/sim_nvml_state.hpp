// SPDX-License-Identifier: Apache-2.0
// The simulated driver's process state: the machine (loaded at the first nvmlInit from
// the file named by sim_use_machine, else by PEERGATE_SIM_MACHINE), the init reference
// count, and faults.
#pragma once

#include "sim/nvml/sim_nvml_machine.hpp"
#include "sources/nvml/nvml_abi.hpp"

namespace peergate::sim::nvml {

// Loads the machine once and counts one init; the machine's own faults may fail it.
nvmlReturn_t sim_init(const char* entry_point);

// Names the machine file for the next nvmlInit, over PEERGATE_SIM_MACHINE ("" : the variable
// again). A library loaded into a program that did not set the variable (the C API's
// callers) is told this way, without touching the program's environment.
void sim_use_machine(const char* path);

// Undoes one init; UNINITIALIZED when there is none (as the real library answers).
nvmlReturn_t sim_shutdown();

// What a fault asks of one call.
struct FaultAnswer {
    bool fail = false;
    nvmlReturn_t code = NVML_SUCCESS;
    bool unknown = false;  // P2P status answers UNKNOWN
};

// For an entry point of an initialised library: UNINITIALIZED when not initialised,
// otherwise the first matching "nvml" fault's answer; "hang" blocks here forever.
FaultAnswer enter(const char* entry_point);

// The loaded machine; only valid after enter() reported no failure.
const SimMachine& machine();

// Successful nvmlInit calls since the library loaded (shutdowns do not lower it).
int sessions_opened();

// Seconds since the first successful nvmlInit (0 before it): the traffic counters' clock.
double seconds_running();

// Position of the GPU behind a handle, or -1 for a handle we did not give out.
int position_of(nvmlDevice_t device);

// The handle of the GPU at `position`.
nvmlDevice_t handle_of(std::size_t position);

}  // namespace peergate::sim::nvml
