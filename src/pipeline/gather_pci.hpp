// SPDX-License-Identifier: Apache-2.0
// The PCIe part of gather's host step, from sysfs under the host root: the ports above each
// GPU with their ACS control words, and the link and AER counters of every GPU, port and
// network function, so that a replay's doctor and export nccl-topo read what this host showed.
#pragma once

#include "snapshot/machine_file.hpp"
#include "sources/host/host_root.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace peergate::pipeline {

// The GPU's link, AER counters and the ports above it. Returns how many of those ports'
// ACS control words could not be read (recorded as unknown).
std::size_t record_gpu_pci(const sources::host::HostRoot& root, snapshot::MachineGpu& gpu);

// The host's network functions (one per card, class 0x02) with their ports and links, into
// `nics`; returns a note for each one left out because sysfs did not name its ids.
std::vector<std::string> record_nics(const sources::host::HostRoot& root,
                                     std::vector<snapshot::MachineNic>& nics);

}  // namespace peergate::pipeline
