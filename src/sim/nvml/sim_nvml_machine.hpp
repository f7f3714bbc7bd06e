// SPDX-License-Identifier: Apache-2.0
// What the simulated NVML answers, derived once from a peergate.machine/v1 file: the
// NVLinks of each GPU, the P2P status of each ordered pair and caps index, the common
// ancestor level, and the affinity bitmasks.
#pragma once

#include "snapshot/machine_file.hpp"
#include "sources/nvml/nvml_abi.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::sim::nvml {

struct SimLink {
    bool active = true;
    bool to_switch = false;
    model::PciAddress remote;
};

struct SimGpu {
    snapshot::MachineGpu gpu;
    std::vector<SimLink> links;  // index = NVLink index; size = the GPU's link slots
};

struct SimMachine {
    snapshot::MachineFile file;
    std::vector<SimGpu> gpus;  // by position, as nvmlDeviceGetHandleByIndex counts them
};

// Derives the links with snapshot/derived.hpp (explicit "nvlinks" win; otherwise NV<n>
// to a peer is n links to it, or on an NVSwitch machine the row's largest n go to the
// switches). Slots past the listed links (nvlink_slots) are inactive links.
SimMachine derive_machine(snapshot::MachineFile file);

// nvmlGpuP2PStatus_t value for caps index `caps` from p to q, as derived.hpp derives the
// token (explicit nvml_p2p rows win); UNKNOWN for a caps index NVML does not define.
int p2p_status(const SimMachine& machine, int caps, std::size_t p, std::size_t q);

// nvmlGpuTopologyLevel_t value between p and q from the matrix label (an NV# pair has no
// PCIe label there: NODE when both GPUs sit on one known NUMA node, else SYSTEM).
int ancestor_level(const SimMachine& machine, std::size_t p, std::size_t q);

// Counter `counter` of link `link` in the `session`th NVML session (1 = the first): the
// file's count plus its growth per later session; for a link the file does not list, 0 on
// the counters the GPU keeps (its nvlink_counters) and nullopt on the others; nullopt
// (NOT_SUPPORTED) for a count it lists without.
std::optional<std::uint64_t> nvlink_error_count(const SimGpu& gpu,
                                                unsigned link,
                                                model::NvlinkCounter counter,
                                                int session);

// One field value of nvmlDeviceGetFieldValues for the GPU: the NVLink5 counters of the link
// `value->scopeId` names; any other field is NOT_SUPPORTED.
void fill_field_value(const SimGpu& gpu, int session, nvmlFieldValue_t* value);

// nvmlDeviceGetGpuFabricInfo(V)'s answer for the GPU: NOT_SUPPORTED where the file gives no
// "fabric"; the v2 structure needs its version word (else ARGUMENT_VERSION_MISMATCH) and
// carries the health mask.
nvmlReturn_t fabric_info(const snapshot::MachineGpu& gpu, nvmlGpuFabricInfo_t* info);
nvmlReturn_t fabric_info(const snapshot::MachineGpu& gpu, nvmlGpuFabricInfo_v2_t* info);

// nvmlDeviceGetMigMode's answer for the GPU: NOT_SUPPORTED where the file gives no "mig".
nvmlReturn_t mig_mode(const snapshot::MachineGpu& gpu, unsigned* current, unsigned* pending);

// "0-47,96-143" as 64-bit words; `words` long; bits past it are dropped, as NVML does.
std::vector<std::uint64_t> cpu_words(const std::string& list, unsigned words);

}  // namespace peergate::sim::nvml
