// SPDX-License-Identifier: Apache-2.0
// Answers every simulated part derives from one machine file the same way: the topology,
// the NVML P2P status per caps index, the NVLinks of each GPU and CUDA's can-access-peer.
// The simulated NVML, CUDA driver and nvidia-smi all call these, so they cannot disagree
// unless the machine file says they do (explicit fields win over derived ones).
#pragma once

#include "model/pci_address.hpp"
#include "model/topology.hpp"
#include "snapshot/machine_file.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace peergate::snapshot {

// NVML's nvmlGpuP2PCapsIndex_t order (READ=0, WRITE=1, NVLINK=2, ATOMICS=3, PROP=4) and
// the letters of `nvidia-smi topo -p2p r|w|n|a|p`.
enum class P2pCaps { read = 0, write = 1, nvlink = 2, atomics = 3, prop = 4 };

// 'r', 'w', 'n', 'a', 'p' -> caps; false for anything else.
bool p2p_caps_from_letter(char letter, P2pCaps& caps);

// The machine's topology as peergate reads it: gpus (index, name, pci, uuid, NUMA node,
// CPU affinity) and the matrix, source `simulated`, provenance "machine file <name>".
model::Topology machine_topology(const MachineFile& machine);

// The position in machine.gpus of the GPU with nvidia-smi index `index`; nullopt for none.
std::optional<std::size_t> gpu_position(const MachineFile& machine, int index);

// The NVML P2P status token (OK CNS GNS TNS DR NS U; X on the diagonal) for the GPUs at
// positions p and q. Explicit nvml_p2p rows win. Derived: nvlink and atomics are OK iff
// the pair is NV#, else NS; read, write and prop are OK everywhere (what the driver
// claims, even on hosts that drop PCIe peer traffic).
std::string p2p_status_token(const MachineFile& machine,
                             P2pCaps caps,
                             std::size_t p,
                             std::size_t q);

// The whole status matrix for one caps index.
std::vector<std::vector<std::string>> p2p_status_matrix(const MachineFile& machine, P2pCaps caps);

// nvmlGpuP2PStatus_t value of a token: OK 0, CNS 1, GNS 2, TNS 3, DR 4, NS 5, U 6
// (and X, the diagonal, 5: NVML has no self status).
int p2p_status_code(const std::string& token);

// PCI addresses of the NVSwitches: `nvswitch_pci` when given, else (nvswitch = true)
// four synthetic addresses 0000:<bus>:00.0 from bus C0 up, skipping buses the GPUs use
// (the first is 0000:C0:00.0 unless a GPU sits there); none without NVSwitch.
std::vector<model::PciAddress> nvswitch_addresses(const MachineFile& machine);

// The NVLinks of the GPU at position p. Explicit `nvlinks` win. Derived from the matrix:
// NV<n> to a peer is n active links whose remote is that peer's PCI address, numbered
// 0.. in peer order; with nvswitch = true the GPU's links (the largest NV# in its row)
// go round-robin to the NVSwitch addresses, remote_type "switch".
std::vector<MachineNvlink> gpu_nvlinks(const MachineFile& machine, std::size_t p);

// cuDeviceCanAccessPeer for positions p, q: `cuda_can_access_peer` when given, else 1
// off the diagonal (the driver's claim) and 0 on it.
int cuda_can_access_peer(const MachineFile& machine, std::size_t p, std::size_t q);

}  // namespace peergate::snapshot
