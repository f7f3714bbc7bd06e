// SPDX-License-Identifier: Apache-2.0
// What an NCCL topology file (NCCL_TOPO_FILE) tells NCCL about GPU NVLinks. A <gpu> element
// that lists <nvlink> children stops NCCL from asking NVML for that GPU's links, so a file
// written before a link went down still shows NCCL an NVLink path: NCCL then takes the P2P
// transport between GPUs whose traffic the driver now routes over PCIe.
#pragma once

#include "model/pci_address.hpp"
#include "model/topology.hpp"

#include <string>
#include <utility>
#include <vector>

namespace peergate::model {

// One <gpu> of the file with the NVLinks it lists.
struct NcclTopoGpu {
    PciAddress bus;                 // the enclosing <pci busid=...>
    std::vector<PciAddress> peers;  // <nvlink> targets of a GPU class (0x03...)
    bool to_switch = false;         // an <nvlink> to an NVSwitch (any class but GPU or CPU)
    bool lists_nvlinks = false;     // any <nvlink> at all: NCCL does not ask NVML

    friend bool operator==(const NcclTopoGpu&, const NcclTopoGpu&) = default;
};

// The topology file NCCL will read, and where its name came from.
struct NcclTopoFile {
    std::string path;
    std::string named_by;    // "NCCL_TOPO_FILE", "/etc/nccl.conf", "NCCL's default path", ...
    bool exists = true;      // false: no such file, and NCCL goes on without one
    std::string unreadable;  // why peergate could not read it; empty when it did
    std::string malformed;   // why NCCL's reader refuses it; empty when it takes it
    std::vector<NcclTopoGpu> gpus;

    // Whether the file shows NCCL an NVLink path between the GPUs at `a` and `b`: one lists
    // the other as an NVLink peer, or both list NVSwitch links.
    bool claims_nvlink(const PciAddress& a, const PciAddress& b) const;

    // The pairs (a < b) of `ids` (nvidia-smi indices) the file shows as NVLinked that the
    // matrix does not; none when the file was not read.
    std::vector<std::pair<int, int>> false_nvlink_claims(const Topology& topology,
                                                         const std::vector<int>& ids) const;
};

}  // namespace peergate::model
