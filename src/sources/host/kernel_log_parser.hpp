// SPDX-License-Identifier: Apache-2.0
// Reads kernel log text (dmesg, journalctl -k, /var/log/kern.log) for the events that
// explain broken peer-to-peer: NVIDIA Xids, GPUs fallen off the bus, IOMMU faults. Pure.
#pragma once

#include "model/kernel_event.hpp"

#include <string_view>
#include <vector>

namespace peergate::sources::host {

// Events grouped by (kind, device, xid) in order of first appearance. Lines that match
// nothing are ignored; a malformed line is skipped, never fatal.
std::vector<model::KernelEvent> parse_kernel_log(std::string_view text);

}  // namespace peergate::sources::host
