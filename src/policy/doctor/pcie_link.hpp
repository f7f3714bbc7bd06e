// SPDX-License-Identifier: Apache-2.0
// PCIe links that trained narrower than both their ends can do: a card in a slot whose lanes
// are split, a loose riser, a failing connector. The link still works, at a fraction of its
// bandwidth, so every layer says yes and only the copies are slow. Only the width is judged:
// a GPU lowers its link speed when idle (power saving), while the width stays where it
// trained. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/pci_address.hpp"
#include "model/topology.hpp"
#include "policy/doctor/doctor.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::policy::doctor {

// One link between a GPU and its root complex, as sysfs shows its two ends.
struct PcieLinkState {
    model::PciAddress lower;  // the GPU, or a switch's upstream port
    model::PciAddress upper;  // the port above it, on the same link
    bool lower_is_gpu = false;
    std::vector<int> gpus;       // the examined GPUs whose host traffic crosses it, ascending
    std::optional<int> width;    // the lanes it trained at
    std::optional<int> capable;  // the most both ends can do: the smaller maximum width
    std::string speed;           // what it runs at now (lower at idle)
    std::string max_speed;       // the lower end's maximum
};

// Every link on the way up from each examined GPU (input.ports): the GPU and the port it
// plugs into, then every second port (a switch's upstream port and the port above it), the
// pairing NCCL uses; a link GPUs share is listed once with all of them. Needs input.pci.
std::vector<PcieLinkState> pcie_links(const DoctorInput& input, const model::Topology& topology);

// One `pcie_link_narrow` warning per link that trained narrower than it can.
std::vector<model::Finding> pcie_link_findings(const std::vector<PcieLinkState>& links);

// Each physical NIC's own link (the card and the port it plugs into; `gpus` empty), where
// input.pci has the card's attributes.
std::vector<PcieLinkState> nic_pcie_links(const DoctorInput& input);

// One `nic_link_narrow` warning per NIC link that trained narrower than it can: the card's
// network traffic, GPUDirect RDMA included, gets that fraction of its PCIe bandwidth.
std::vector<model::Finding> nic_link_findings(const std::vector<PcieLinkState>& links,
                                              const std::vector<model::Nic>& nics);

}  // namespace peergate::policy::doctor
