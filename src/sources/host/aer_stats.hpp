// SPDX-License-Identifier: Apache-2.0
// A PCI function's AER statistics under the host root: /sys/bus/pci/devices/<bdf>/
// aer_dev_correctable, aer_dev_nonfatal and aer_dev_fatal, each "<error name> <count>" per
// line and a TOTAL_ERR_COR / TOTAL_ERR_NONFATAL / TOTAL_ERR_FATAL line last
// (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats). Readable without root.
#pragma once

#include "model/pci_address.hpp"
#include "model/pci_aer.hpp"
#include "sources/host/host_root.hpp"

#include <optional>
#include <string_view>

namespace peergate::sources::host {

// One file's text. The name is everything before the last space-separated field, which
// must be a count; lines that are not "<name> <count>" are skipped, as a newer kernel's
// additions would be. A TOTAL_ERR_ line is the total, not an error.
model::AerCounters parse_aer_counters(std::string_view text);

// The device's three files; nullopt when none exists (AER off, or no AER capability).
std::optional<model::PciAer> read_aer(const HostRoot& root, const model::PciAddress& address);

}  // namespace peergate::sources::host
