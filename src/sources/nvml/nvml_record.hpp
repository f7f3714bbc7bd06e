// SPDX-License-Identifier: Apache-2.0
// What `peergate gather` records from NVML: per GPU its identity and NVLinks, per ordered
// pair the P2P status of each caps index as nvidia-smi's letter tokens. One session,
// under the tier's watchdog. Whatever NVML does not answer stays absent, never guessed.
#pragma once

#include "model/gpu.hpp"
#include "model/gpu_fabric.hpp"
#include "model/mig_mode.hpp"
#include "model/nvlink_errors.hpp"
#include "model/pci_address.hpp"
#include "model/topology.hpp"
#include "sources/nvml/nvml_calls.hpp"
#include "util/expected.hpp"

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace peergate::nvml {

// One NVLink slot; an active one with where it ends (inactive links are not asked).
struct RecordedNvlink {
    int link = 0;
    bool active = false;
    bool to_switch = false;                   // the far end is an NVSwitch
    std::optional<model::PciAddress> remote;  // active links only
    model::NvlinkErrorCounts errors;          // active links only; unknown where NVML did not say

    friend bool operator==(const RecordedNvlink&, const RecordedNvlink&) = default;
};

struct RecordedGpu {
    model::Gpu identity;              // name, bus id, UUID, NUMA node, CPU list
    std::optional<int> nvlink_slots;  // link indices NVML answers for; unknown when the walk failed
    std::vector<RecordedNvlink>
        links;  // every slot, in index order (meaningful only with nvlink_slots)
    std::optional<model::GpuFabric> fabric;  // NVSwitch fabric registration; absent: not read
    std::optional<model::MigMode> mig;       // absent: no MIG on the GPU, or not read
};

// nvmlGpuP2PCapsIndex_t order: READ, WRITE, NVLINK, ATOMICS, PROP.
inline constexpr std::size_t kRecordedCaps = 5;
using StatusMatrix = std::vector<std::vector<std::string>>;  // OK CNS GNS TNS DR NS U; X diagonal

struct NvmlRecord {
    std::vector<RecordedGpu> gpus;                               // NVML's order
    std::array<std::optional<StatusMatrix>, kRecordedCaps> p2p;  // absent: some pair had no answer
    std::optional<model::Topology> topology;                     // only when asked for, 2+ GPUs
    std::vector<std::string> notes;                              // what NVML could not tell
};

struct NvmlRecordOptions {
    std::vector<std::string> libraries{"libnvidia-ml.so.1", "libnvidia-ml.so"};
    std::string host_root = "/";
    std::chrono::milliseconds watchdog{10'000};
    bool with_topology = false;     // also read the tier's matrix (a host without nvidia-smi)
    std::string simulated_machine;  // --simulate's machine file, for the simulated NVML
};

// The token of one status value: 0 OK, 1 CNS, 2 GNS, 3 TNS, 4 DR, 5 NS, 6 U; a value a
// newer driver adds has no token (nullopt).
std::optional<std::string> p2p_status_token(nvmlGpuP2PStatus_t status);

// Everything above through one session on `nvml`; fails only when the GPUs cannot be listed.
util::Expected<NvmlRecord> read_nvml_record(NvmlCalls& nvml, bool with_topology);

// Loads the library and records behind the watchdog (nvml_worker.hpp): a hung driver
// gives the timeout error, a missing library not_found.
util::Expected<NvmlRecord> record_nvml(const NvmlRecordOptions& options);

}  // namespace peergate::nvml
