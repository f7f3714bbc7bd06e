// SPDX-License-Identifier: Apache-2.0
// --simulate NAME|FILE: points the seams at the simulated NVML, CUDA driver and
// nvidia-smi, all driven by one machine file, so the real code paths run without a GPU.
#pragma once

#include "pipeline/context.hpp"
#include "snapshot/machine_file.hpp"
#include "util/env_map.hpp"
#include "util/expected.hpp"

#include <string>
#include <vector>

namespace peergate::pipeline {

// Where the installed (or built) parts live, under the prefix of the binary that holds this
// code (peergate/install_layout.hpp). The build tree mirrors the install tree.
struct SimulationParts {
    std::string machines_dir;  // <datadir>/peergate/machines
    std::string nvml_library;  // <libdir>/peergate/libpeergate_sim_nvml.so
    std::string cuda_library;  // <libdir>/peergate/libpeergate_sim_cuda.so
    std::string nvidia_smi;    // <libexecdir>/peergate/peergate-sim-nvidia-smi
};

// Locates the parts beside the binary this code is in: the executable, or libpeergate.so.
SimulationParts locate_simulation_parts();

// Names of the built-in machines (files in machines_dir), sorted.
std::vector<std::string> builtin_machines(const SimulationParts& parts);

// True when the machine file has an "smi" fault with effect "missing".
bool smi_missing(const snapshot::MachineFile& machine);

// Writes the machine's host root (sim/machine/host_root_writer.hpp) once per machine file
// content, under $TMPDIR (else /tmp)/peergate-sim-<uid>/<hash>, and returns its path.
// Concurrent runs are safe (temporary sibling + rename); later runs reuse the tree.
util::Expected<std::string> materialise_host_root(const std::string& machine_text,
                                                  const snapshot::MachineFile& machine,
                                                  const util::EnvMap& env);

// Resolves NAME (a built-in machine) or FILE (a machine file path) and points
// ctx.seams at the simulated parts and the materialised host root; ctx.env gains
// PEERGATE_SIM_MACHINE. An "smi missing" fault points the nvidia-smi seam at nothing.
util::Expected<void> apply_simulation(const std::string& name_or_file, Context& ctx);

}  // namespace peergate::pipeline
