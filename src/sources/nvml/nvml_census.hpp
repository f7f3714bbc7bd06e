// SPDX-License-Identifier: Apache-2.0
// Per GPU: who it is (name, bus id, UUID, NUMA node, CPU list) and where its active
// NVLinks go (docs/gate-rules.md §3 tier 1).
#pragma once

#include "model/gpu.hpp"
#include "model/pci_address.hpp"
#include "sources/nvml/nvml_calls.hpp"

#include <string>
#include <vector>

namespace peergate::nvml {

// The active links of one GPU, by where their far end is.
struct LinkCensus {
    int active = 0;                         // every active link
    int to_switch = 0;                      // active links whose far end is an NVSwitch
    std::vector<model::PciAddress> to_gpu;  // far end of each active non-switch link
};

// Counts the active links over the GPU's link indices. The walk stops at the first index
// that answers INVALID_ARGUMENT (past the GPU's own link count) or NOT_SUPPORTED (no
// NVLink); any other failure is an error, because a partial census proves nothing.
util::Expected<LinkCensus> count_links(NvmlCalls& nvml, nvmlDevice_t device);

// True when link `link` of `device`, whose far end is `remote`, ends at an NVSwitch: the
// remote device type when NVML tells it, else the far end's PCI class in sysfs.
bool link_ends_at_switch(NvmlCalls& nvml,
                         nvmlDevice_t device,
                         unsigned link,
                         const model::PciAddress& remote);

// Name, bus id, UUID (required) and NUMA node, CPU list (optional, unknown on failure).
util::Expected<model::Gpu> read_identity(NvmlCalls& nvml, nvmlDevice_t device, int index);

// A PCI address from NVML's busId text, else from its numeric fields.
util::Expected<model::PciAddress> pci_of(const nvmlPciInfo_t& info);

// CPU bitmask words (64 CPUs per word) as a list such as "0-47,96-143"; "" when empty.
std::string render_cpu_list(const std::vector<unsigned long>& words);  // NOLINT(google-runtime-int)

}  // namespace peergate::nvml
