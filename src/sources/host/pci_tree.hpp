// SPDX-License-Identifier: Apache-2.0
// The PCIe ports above a device, read from sysfs under the host root:
// /sys/bus/pci/devices/<bdf> links to /sys/devices/pci<domain>:<bus>/<root port>/.../<bdf>,
// and every directory between the root bus and the device that is a PCI address is a port
// the device's traffic passes. Each port's ACS control comes from its `config`.
#pragma once

#include "model/pci_address.hpp"
#include "model/pci_port.hpp"
#include "sources/host/host_root.hpp"
#include "util/expected.hpp"

#include <vector>

namespace peergate::sources::host {

// Nearest first (the port the device is plugged into, then upwards to the root port). An
// error when the device is not in sysfs; a port whose ACS control cannot be read says why
// in its `unread`.
util::Expected<std::vector<model::PciPort>> ports_above(const HostRoot& root,
                                                        const model::PciAddress& device);

}  // namespace peergate::sources::host
