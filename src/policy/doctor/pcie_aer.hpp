// SPDX-License-Identifier: Apache-2.0
// PCIe AER counters on the way from each GPU to its root complex. A correctable error (a bad
// TLP or DLLP, a replay timeout) is retried on the link: the data arrives, later. An
// uncorrectable one (a completion timeout, an unsupported request, an ACS violation) can
// lose or poison a transfer. Either kind that grows while the probe moves data marks the
// path as unfit for peer traffic under load. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/pci_address.hpp"
#include "model/topology.hpp"
#include "policy/doctor/doctor.hpp"

#include <map>
#include <vector>

namespace peergate::policy::doctor {

// Per device on the examined GPUs' paths (each GPU and the ports above it), the GPUs whose
// host traffic crosses it, ascending.
std::map<model::PciAddress, std::vector<int>> gpus_through(const DoctorInput& input,
                                                           const model::Topology& topology);

// One `pcie_aer_errors` finding per such device whose counters are not all zero (input.aer):
// a warning where some error was uncorrectable, else info.
std::vector<model::Finding> pcie_aer_findings(const DoctorInput& input,
                                              const model::Topology& topology);

// One `nic_aer_errors` finding per physical NIC whose own AER counters are not all zero: a
// warning where some error was uncorrectable, else info. The probe moves no network traffic,
// so there is no under-load reading for a NIC.
std::vector<model::Finding> nic_aer_findings(const DoctorInput& input);

// One `pcie_aer_errors_under_load` finding per device whose counters grew between input.aer
// and input.aer_after_probe: an error where an uncorrectable count grew, else a warning.
std::vector<model::Finding> pcie_aer_under_load_findings(const DoctorInput& input,
                                                         const model::Topology& topology);

}  // namespace peergate::policy::doctor
